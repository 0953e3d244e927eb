import Foundation
import InMemoryTracing
import MetricsTestKit
import NetLayer
import NetLayerObservability
import NetLayerTesting
import Testing
import Tracing

/// swift-distributed-tracing's in-memory tracer, with W3C-shaped identifiers (32 and 16 lowercase
/// hex digits) and a W3C Trace Context `inject`, as an OpenTelemetry tracer has: the in-memory
/// tracer's own `inject` writes its private keys, not `traceparent`.
struct W3CInMemoryTracer: Tracer {
    typealias Span = InMemorySpan

    let inMemory = InMemoryTracer(
        idGenerator: .init(nextTraceID: { Self.hex(bytes: 16) }, nextSpanID: { Self.hex(bytes: 8) }))

    static let traceState = "netlayer=test"

    static func hex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        inMemory.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func activeSpan(identifiedBy context: ServiceContext) -> InMemorySpan? {
        inMemory.activeSpan(identifiedBy: context)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
        injector.inject(Self.traceState, forKey: "tracestate", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}

    var finishedSpans: [FinishedInMemorySpan] { inMemory.finishedSpans }
    var activeSpans: [InMemorySpan] { inMemory.activeSpans }
}

/// A tracer and a metrics factory that remember, and the observer that feeds them.
struct Telemetry {
    let tracer = W3CInMemoryTracer()
    let metrics = TestMetrics()

    var observer: TelemetryObserver { TelemetryObserver(tracer: tracer, metricsFactory: metrics) }

    /// Waits (at most 5 s) until `count` spans finished, and returns them in the order they ended.
    func spans(count: Int) async throws -> [FinishedInMemorySpan] {
        let deadline = ContinuousClock.now + .seconds(5)
        while tracer.finishedSpans.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let spans = tracer.finishedSpans
        try #require(spans.count == count, "finished spans: \(spans.map(\.operationName))")
        return spans
    }

    /// Waits (at most 5 s) until `count` calls' spans ended.
    func waitForCallSpans(_ count: Int) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while tracer.finishedSpans.filter({ $0.kind == .internal }).count < count,
            ContinuousClock.now < deadline
        {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The call's span and its attempts' spans, in attempt order; checks the tree: one trace, the
    /// call's span a root (or a child of `parent`), every attempt its child.
    func tree(attempts: Int, parentSpanID: String? = nil) async throws -> (
        call: FinishedInMemorySpan, attempts: [FinishedInMemorySpan]
    ) {
        let spans = try await spans(count: attempts + 1)
        let calls = spans.filter { $0.kind == .internal }
        try #require(calls.count == 1)
        let call = calls[0]
        #expect(call.parentSpanID == parentSpanID)
        let children = spans.filter { $0.kind == .client }.sorted {
            ($0.attributes.get(HTTPClientConventions.Attribute.requestResendCount).flatMap(\.int64) ?? 0)
                < ($1.attributes.get(HTTPClientConventions.Attribute.requestResendCount).flatMap(\.int64) ?? 0)
        }
        #expect(children.count == attempts)
        for child in children {
            #expect(child.traceID == call.traceID)
            #expect(child.parentSpanID == call.spanID)
        }
        #expect(Set(spans.map(\.spanID)).count == spans.count, "span ids are unique")
        return (call, children)
    }

    /// The one value of a metric with exactly these dimensions (in any order).
    func timerValues(_ label: String, _ dimensions: [(String, String)]) -> [Int64] {
        metrics.timers(label: label).filter { Self.same($0.dimensions, dimensions) }.flatMap(\.values)
    }

    func recorderValues(_ label: String, _ dimensions: [(String, String)]) -> [Double] {
        metrics.recorders(label: label).filter { Self.same($0.dimensions, dimensions) }.flatMap(\.values)
    }

    func counterTotal(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        metrics.counters(label: label).filter { Self.same($0.dimensions, dimensions) }.map(\.totalValue)
            .reduce(0, +)
    }

    func meterValues(_ label: String, _ dimensions: [(String, String)]) -> [Double] {
        metrics.meters(label: label).filter { Self.same($0.dimensions, dimensions) }.flatMap(\.values)
    }

    /// Every dimension set recorded under `label`, as dictionaries.
    func dimensionSets(_ label: String) -> [[String: String]] {
        let all: [[(String, String)]] =
            metrics.timers(label: label).map(\.dimensions) + metrics.recorders(label: label).map(\.dimensions)
            + metrics.counters(label: label).map(\.dimensions)
            + metrics.meters(label: label).map(\.dimensions)
        return all.map { Dictionary($0, uniquingKeysWith: { first, _ in first }) }
    }

    static func same(_ left: [(String, String)], _ right: [(String, String)]) -> Bool {
        left.count == right.count
            && Set(left.map { "\($0.0)=\($0.1)" }) == Set(right.map { "\($0.0)=\($0.1)" })
    }
}

extension SpanAttribute {
    /// The value of an `.int64` attribute.
    var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }
}

extension FinishedInMemorySpan {
    /// The attributes as a dictionary, to compare with `==` (so every attribute is checked).
    var attributeMap: [String: SpanAttribute] {
        var map: [String: SpanAttribute] = [:]
        attributes.forEach { map[$0] = $1 }
        return map
    }

    /// From start to end.
    var elapsed: Duration {
        .nanoseconds(Int64(endInstant.nanosecondsSinceEpoch) - Int64(startInstant.nanosecondsSinceEpoch))
    }

    /// What the server should have received as `traceparent` for this span.
    var traceparent: String { "00-\(traceID)-\(spanID)-01" }
}

/// W3C Trace Context's `traceparent` (version 00): `00-<32 hex>-<16 hex>-<2 hex>`, lowercase, the
/// trace id and the parent id not all zeros.
func isValidTraceparent(_ value: String) -> Bool {
    let parts = value.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "00" else { return false }
    let hex = Set("0123456789abcdef")
    func isHex(_ part: Substring, _ count: Int) -> Bool {
        part.count == count && part.allSatisfy(hex.contains)
    }
    return isHex(parts[1], 32) && isHex(parts[2], 16) && isHex(parts[3], 2)
        && parts[1] != Substring(String(repeating: "0", count: 32))
        && parts[2] != Substring(String(repeating: "0", count: 16))
}

/// A loopback server for one test, and a resource on it.
struct Service {
    let server: LoopbackServer
    let telemetry = Telemetry()

    init() throws {
        server = try LoopbackServer.start()
    }

    /// A resource on the server with the telemetry observer, and `options` for the rest.
    func resource(_ configure: (inout ResourceOptions) -> Void = { _ in }, transport: (any Transport)? = nil)
        -> Resource
    {
        var options = ResourceOptions(observer: telemetry.observer)
        configure(&options)
        return Resource(protocol: .http, domain: server.hostAndPort, transport: transport, options: options)
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// The dimensions every attempt metric of a GET to this server has.
    var getDimensions: [(String, String)] {
        [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"),
            ("server.port", String(server.port)),
            ("url.scheme", "http"),
        ]
    }
}
