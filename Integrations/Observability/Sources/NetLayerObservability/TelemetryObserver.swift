import CoreMetrics
import NetLayer
import Tracing

/// Traces and measures NetLayer calls as OpenTelemetry's semantic conventions for HTTP clients
/// describe them (``HTTPClientConventions/version``), through swift-distributed-tracing and
/// swift-metrics: install it as a resource's observer and every call is a trace and a set of
/// metrics.
///
/// ```swift
/// let telemetry = TelemetryObserver()
/// let api = Resource(domain: "api.example.com", options: ResourceOptions(observer: telemetry))
/// ```
///
/// **Spans.** Each attempt — the first request, a retry, a redirect hop, the replay after a
/// credentials refresh, an event stream's reconnection — is a `CLIENT` span named by its method
/// (`GET`), or `GET /users/:id` when the attempt goes to the call's own URL and the target's path
/// template is known. A call of several attempts is one logical operation: the conventions ask for
/// no second HTTP client span around the physical ones, so the call's span, which parents them,
/// is `INTERNAL` (``Configuration/callSpans`` turns it off; the attempts then hang from the
/// caller's span). An attempt's span ends when its body ends — read to the end, set aside for the
/// next attempt, stopped by the consumer, or failed — not when its head arrives; the call's span
/// ends when the consumer is done with the call. The tracer's `inject` puts the attempt's trace
/// context (W3C `traceparent` and `tracestate` with an OpenTelemetry tracer) into that attempt's
/// request.
///
/// **Metrics.** `http.client.request.duration` per attempt, the request and response body sizes,
/// the attempts in flight, retries, waits for admission and whole calls; see
/// ``HTTPClientConventions/Metric``. Dimensions are low-cardinality only: method, server address
/// and port, URL scheme, status code, error type, protocol version — never a URL or a header.
///
/// The tracer and the metrics factory are the ones bootstrapped (`InstrumentationSystem`,
/// `MetricsSystem`) when the call starts, unless given here. With a no-op tracer and a no-op
/// metrics factory, each call is ignored without reading its URL: nothing is redacted, recorded or
/// allocated for it here.
public struct TelemetryObserver: CallObserver {
    /// What is recorded and how spans are named.
    public struct Configuration: Sendable {
        /// Records spans. Default `true`.
        public var tracing: Bool
        /// Records metrics. Default `true`.
        public var metrics: Bool
        /// Opens an `INTERNAL` span for each call that parents its attempts' spans. Default `true`.
        public var callSpans: Bool
        /// Names spans `{method} {template}` and sets `url.template` when the target's path
        /// template is known (it holds no path-part values). Default `true`; `false` names spans by
        /// method only.
        public var pathTemplates: Bool
        /// The methods reported as they are; others are reported as `_OTHER` (with
        /// `http.request.method_original`) and named `HTTP`. Default
        /// ``HTTPClientConventions/defaultKnownMethods`` (the conventions' list, or the
        /// `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS` environment variable when set).
        public var knownMethods: Set<String>

        /// Creates a configuration; every argument has the default documented on its property.
        public init(
            tracing: Bool = true, metrics: Bool = true, callSpans: Bool = true, pathTemplates: Bool = true,
            knownMethods: Set<String> = HTTPClientConventions.defaultKnownMethods
        ) {
            self.tracing = tracing
            self.metrics = metrics
            self.callSpans = callSpans
            self.pathTemplates = pathTemplates
            self.knownMethods = knownMethods
        }
    }

    /// The tracer given at creation, or `nil` for the bootstrapped one.
    public let tracer: (any Tracer)?
    /// The metrics factory given at creation, or `nil` for the bootstrapped one.
    public let metricsFactory: (any MetricsFactory)?
    /// What is recorded.
    public let configuration: Configuration

    /// Creates an observer.
    /// - Parameters:
    ///   - tracer: Default `nil`: `InstrumentationSystem.tracer`, read when each call starts.
    ///   - metricsFactory: Default `nil`: `MetricsSystem.factory`, read when each call starts.
    ///   - configuration: Default: spans and metrics, call spans, template names.
    public init(
        tracer: (any Tracer)? = nil, metricsFactory: (any MetricsFactory)? = nil,
        configuration: Configuration = Configuration()
    ) {
        self.tracer = tracer
        self.metricsFactory = metricsFactory
        self.configuration = configuration
    }

    /// Starts the call's telemetry: the call's span (a child of the task's current service
    /// context), and the state its attempts need. Returns `nil` (the call is not observed) when
    /// neither a tracer nor a metrics factory would record anything.
    public func callStarted(_ event: CallStarted) -> (any CallObserver)? {
        var activeTracer: (any Tracer)?
        if configuration.tracing {
            let tracer = self.tracer ?? InstrumentationSystem.tracer
            if !(tracer is NoOpTracer) { activeTracer = tracer }
        }
        var activeFactory: (any MetricsFactory)?
        if configuration.metrics {
            let factory = metricsFactory ?? MetricsSystem.factory
            if !(factory is NOOPMetricsHandler) { activeFactory = factory }
        }
        guard activeTracer != nil || activeFactory != nil else { return nil }
        return CallTelemetry(
            event, tracer: activeTracer, metrics: activeFactory, configuration: configuration,
            parent: ServiceContext.current ?? .topLevel)
    }
}
