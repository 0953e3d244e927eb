import CoreMetrics
import Foundation
import NetLayer
import Tracing

/// One call's telemetry: its span, its attempts' spans and what their metrics need. Made by
/// ``TelemetryObserver/callStarted(_:)``; receives the call's further events.
///
/// NetLayer delivers a call's events one at a time, but not always on the same thread (a body can
/// end on a transport thread), so the mutable state sits behind a lock.
final class CallTelemetry: CallObserver, @unchecked Sendable {
    private let tracer: (any Tracer)?
    private let metrics: (any MetricsFactory)?
    private let configuration: TelemetryObserver.Configuration
    /// The context attempts' spans are children of: the call's span's, or the caller's.
    private let parent: ServiceContext
    private let callSpan: (any Span)?
    private let call: CallStarted
    /// `http.request.method` (maybe `_OTHER`) and the original when it differs, of the call.
    private let method: (name: String, original: String?)
    private let state = Locked(State())

    private struct State {
        var attempts: [Attempt] = []
    }

    /// An attempt in flight.
    private struct Attempt {
        let number: Int
        let span: (any Span)?
        /// Method, server address and port, scheme: the dimensions every attempt metric has.
        let dimensions: [(String, String)]
        var statusCode: Int?
        var protocolVersion: String?
    }

    init(
        _ call: CallStarted, tracer: (any Tracer)?, metrics: (any MetricsFactory)?,
        configuration: TelemetryObserver.Configuration, parent: ServiceContext
    ) {
        self.call = call
        self.tracer = tracer
        self.metrics = metrics
        self.configuration = configuration
        method = Self.method(call.method, known: configuration.knownMethods)
        if let tracer, configuration.callSpans {
            let template = Self.template(forURL: call.url, call: call, configuration: configuration)
            let span = tracer.startSpan(
                Self.spanName(method: method, template: template), context: parent, ofKind: .internal)
            var attributes = span.attributes
            attributes.set(HTTPClientConventions.Attribute.requestMethod, value: .string(method.name))
            if let original = method.original {
                attributes.set(
                    HTTPClientConventions.Attribute.requestMethodOriginal, value: .string(original))
            }
            attributes.set(HTTPClientConventions.Attribute.serverAddress, value: .string(call.host))
            attributes.set(HTTPClientConventions.Attribute.serverPort, value: .int64(Int64(call.port)))
            attributes.set(
                HTTPClientConventions.Attribute.urlFull,
                value: .string(HTTPClientConventions.fullURL(call.url)))
            if let template {
                attributes.set(HTTPClientConventions.Attribute.urlTemplate, value: .string(template))
            }
            span.attributes = attributes
            callSpan = span
            self.parent = span.context
        } else {
            callSpan = nil
            self.parent = parent
        }
    }

    // MARK: Events

    func admissionWaited(_ event: AdmissionWaited) {
        let kind = HTTPClientConventions.admissionKind(event.wait.kind)
        if let callSpan {
            callSpan.addEvent(
                SpanEvent(
                    name: HTTPClientConventions.admissionWaitEvent,
                    attributes: [
                        HTTPClientConventions.Attribute.admissionKind: .string(kind),
                        HTTPClientConventions.Attribute.admissionAttempt: .int64(Int64(event.wait.attempt)),
                        HTTPClientConventions.Attribute.admissionDuration: .double(
                            event.wait.duration.secondsValue),
                    ]))
        }
        if let metrics {
            metrics.makeTimer(
                label: HTTPClientConventions.Metric.admissionWaitDuration,
                dimensions: [
                    (HTTPClientConventions.Attribute.admissionKind, kind),
                    (HTTPClientConventions.Attribute.serverAddress, call.host),
                    (HTTPClientConventions.Attribute.serverPort, String(call.port)),
                ]
            ).recordNanoseconds(event.wait.duration.nanosecondCount)
        }
    }

    func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) {
        let method =
            event.method == call.method
            ? self.method : Self.method(event.method, known: configuration.knownMethods)
        var span: (any Span)?
        if let tracer {
            let template = Self.template(forURL: event.url, call: call, configuration: configuration)
            let started = tracer.startSpan(
                Self.spanName(method: method, template: template), context: parent, ofKind: .client)
            var attributes = started.attributes
            attributes.set(HTTPClientConventions.Attribute.requestMethod, value: .string(method.name))
            if let original = method.original {
                attributes.set(
                    HTTPClientConventions.Attribute.requestMethodOriginal, value: .string(original))
            }
            attributes.set(HTTPClientConventions.Attribute.serverAddress, value: .string(event.host))
            attributes.set(HTTPClientConventions.Attribute.serverPort, value: .int64(Int64(event.port)))
            attributes.set(
                HTTPClientConventions.Attribute.urlFull,
                value: .string(HTTPClientConventions.fullURL(event.url)))
            if let template {
                attributes.set(HTTPClientConventions.Attribute.urlTemplate, value: .string(template))
            }
            if event.resendCount > 0 {
                attributes.set(
                    HTTPClientConventions.Attribute.requestResendCount,
                    value: .int64(Int64(event.resendCount)))
            }
            attributes.set(
                HTTPClientConventions.Attribute.attemptReason,
                value: .string(HTTPClientConventions.reasonName(event.reason.kind)))
            if let cause = HTTPClientConventions.cause(event.reason) {
                attributes.set(HTTPClientConventions.Attribute.attemptCause, value: .string(cause))
            }
            if event.bodyLength > 0 {
                attributes.set(
                    HTTPClientConventions.Attribute.requestBodySize, value: .int64(event.bodyLength))
            }
            started.attributes = attributes
            tracer.inject(started.context, into: &headers, using: AttemptHeadersInjector())
            span = started
        }
        var dimensions: [(String, String)] = [
            (HTTPClientConventions.Attribute.requestMethod, method.name),
            (HTTPClientConventions.Attribute.serverAddress, event.host),
            (HTTPClientConventions.Attribute.serverPort, String(event.port)),
        ]
        if let scheme = HTTPClientConventions.scheme(of: event.url) {
            dimensions.append((HTTPClientConventions.Attribute.urlScheme, scheme))
        }
        if let metrics {
            metrics.makeMeter(label: HTTPClientConventions.Metric.activeRequests, dimensions: dimensions)
                .increment(by: 1)
            let kind = event.reason.kind
            if kind != .first, kind != .redirect {
                metrics.makeCounter(
                    label: HTTPClientConventions.Metric.retries,
                    dimensions: dimensions + [
                        (HTTPClientConventions.Attribute.retryKind, HTTPClientConventions.reasonName(kind))
                    ]
                ).increment(by: 1)
            }
        }
        let attempt = Attempt(number: event.number, span: span, dimensions: dimensions)
        state.withLock { $0.attempts.append(attempt) }
    }

    func headReceived(_ event: HeadReceived) {
        let span = state.withLock { state -> (any Span)? in
            guard let index = state.attempts.firstIndex(where: { $0.number == event.attempt }) else {
                return nil
            }
            state.attempts[index].statusCode = event.statusCode
            state.attempts[index].protocolVersion = event.httpVersion
            return state.attempts[index].span
        }
        guard let span else { return }
        var attributes = span.attributes
        attributes.set(
            HTTPClientConventions.Attribute.responseStatusCode, value: .int64(Int64(event.statusCode)))
        if let version = event.httpVersion {
            attributes.set(HTTPClientConventions.Attribute.networkProtocolVersion, value: .string(version))
        }
        span.attributes = attributes
    }

    func attemptFinished(_ event: AttemptFinished) {
        let attempt = state.withLock { state -> Attempt? in
            guard let index = state.attempts.firstIndex(where: { $0.number == event.attempt }) else {
                return nil
            }
            return state.attempts.remove(at: index)
        }
        guard let attempt else { return }
        let statusCode = event.statusCode ?? attempt.statusCode
        let errorType = HTTPClientConventions.errorType(statusCode: statusCode, errorCode: event.errorCode)
        if let span = attempt.span {
            var attributes = span.attributes
            if let statusCode {
                attributes.set(
                    HTTPClientConventions.Attribute.responseStatusCode, value: .int64(Int64(statusCode)))
                attributes.set(
                    HTTPClientConventions.Attribute.responseBodySize, value: .int64(event.bytesReceived))
            }
            if let errorType {
                attributes.set(HTTPClientConventions.Attribute.errorType, value: .string(errorType))
            }
            span.attributes = attributes
            if errorType != nil { span.setStatus(SpanStatus(code: .error)) }
            span.end()
        }
        if let metrics {
            var dimensions = attempt.dimensions
            if let statusCode {
                dimensions.append((HTTPClientConventions.Attribute.responseStatusCode, String(statusCode)))
            }
            if let errorType { dimensions.append((HTTPClientConventions.Attribute.errorType, errorType)) }
            if let version = attempt.protocolVersion {
                dimensions.append((HTTPClientConventions.Attribute.networkProtocolVersion, version))
            }
            metrics.makeTimer(label: HTTPClientConventions.Metric.requestDuration, dimensions: dimensions)
                .recordNanoseconds(event.duration.nanosecondCount)
            metrics.makeRecorder(
                label: HTTPClientConventions.Metric.requestBodySize, dimensions: dimensions, aggregate: true
            ).record(event.bytesSent)
            if statusCode != nil {
                metrics.makeRecorder(
                    label: HTTPClientConventions.Metric.responseBodySize, dimensions: dimensions,
                    aggregate: true
                ).record(event.bytesReceived)
            }
            metrics.makeMeter(
                label: HTTPClientConventions.Metric.activeRequests, dimensions: attempt.dimensions
            )
            .decrement(by: 1)
        }
    }

    func callFinished(_ event: CallFinished) {
        // Attempts still open (none, if NetLayer keeps its promise) end with the call.
        let open = state.withLock { state -> [Attempt] in
            defer { state.attempts.removeAll() }
            return state.attempts
        }
        for attempt in open {
            attempt.span?.end()
            if let metrics {
                metrics.makeMeter(
                    label: HTTPClientConventions.Metric.activeRequests, dimensions: attempt.dimensions
                )
                .decrement(by: 1)
            }
        }
        let errorType = HTTPClientConventions.callErrorType(
            statusCode: event.statusCode, errorCode: event.errorCode)
        if let callSpan {
            var attributes = callSpan.attributes
            attributes.set(HTTPClientConventions.Attribute.callAttempts, value: .int64(Int64(event.attempts)))
            if let statusCode = event.statusCode {
                attributes.set(
                    HTTPClientConventions.Attribute.responseStatusCode, value: .int64(Int64(statusCode)))
            }
            if let errorType {
                attributes.set(HTTPClientConventions.Attribute.errorType, value: .string(errorType))
            }
            callSpan.attributes = attributes
            if errorType != nil { callSpan.setStatus(SpanStatus(code: .error)) }
            callSpan.end()
        }
        if let metrics {
            var dimensions: [(String, String)] = [
                (HTTPClientConventions.Attribute.requestMethod, method.name),
                (HTTPClientConventions.Attribute.serverAddress, call.host),
                (HTTPClientConventions.Attribute.serverPort, String(call.port)),
            ]
            if let scheme = HTTPClientConventions.scheme(of: call.url) {
                dimensions.append((HTTPClientConventions.Attribute.urlScheme, scheme))
            }
            if let statusCode = event.statusCode {
                dimensions.append((HTTPClientConventions.Attribute.responseStatusCode, String(statusCode)))
            }
            if let errorType { dimensions.append((HTTPClientConventions.Attribute.errorType, errorType)) }
            metrics.makeTimer(label: HTTPClientConventions.Metric.callDuration, dimensions: dimensions)
                .recordNanoseconds(event.duration.nanosecondCount)
        }
    }

    // MARK: Naming

    /// The template names an attempt only when it goes to the call's own URL (not a redirect's).
    static func template(
        forURL url: String, call: CallStarted, configuration: TelemetryObserver.Configuration
    ) -> String? {
        guard configuration.pathTemplates, url == call.url, !call.pathTemplate.isEmpty else { return nil }
        return call.pathTemplate
    }

    /// `{method} {template}`, or `{method}`; `{method}` is `HTTP` for an unknown method.
    static func spanName(method: (name: String, original: String?), template: String?) -> String {
        let name = method.original == nil ? method.name : "HTTP"
        guard let template else { return name }
        return "\(name) \(template)"
    }

    /// The method as the conventions report it: itself when known, else `_OTHER` and the original.
    static func method(_ method: HTTPMethod, known: Set<String>) -> (name: String, original: String?) {
        known.contains(method.rawValue) ? (method.rawValue, nil) : ("_OTHER", method.rawValue)
    }
}

extension Duration {
    /// The duration in seconds.
    var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, saturating.
    var nanosecondCount: Int64 {
        let parts = components
        let (whole, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return parts.seconds < 0 ? .min : .max }
        let (sum, overflowSum) = whole.addingReportingOverflow(parts.attoseconds / 1_000_000_000)
        return overflowSum ? (whole < 0 ? .min : .max) : sum
    }
}

/// Writes the tracer's propagation fields into an attempt's request. A field the request cannot
/// carry (a name NetLayer refuses, a value with control characters) is left out.
struct AttemptHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout AttemptHeaders) {
        try? carrier.set(value, for: key)
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
