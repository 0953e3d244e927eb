import Foundation
import NetLayer
import NetLayerTesting
import Testing

/// Docs/Observability.md's examples run, not only compile.
@Suite("Docs/Observability.md examples")
struct ObservabilityExamplesTests {
    typealias Examples = ObservabilityExamples

    @Test func theTraceContextObserverSendsATraceparentAndTheMetricsTellTheAttempts() async throws {
        let server = try LoopbackServer.start()
        defer { server.stop() }
        server.route("/orders") { _ in .json(#"[{"id":1}]"#) }
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let api = Examples.ShopAPI(
            domain: server.hostAndPort, secure: false,
            options: ResourceOptions(observer: Examples.TraceContext(traceID: traceID)))
        try await Examples.whereDidTheTimeGo(api)
        let traceparent = try #require(server.requests(path: "/orders").first?.header("traceparent"))
        let parts = traceparent.split(separator: "-")
        #expect(parts.count == 4 && parts[0] == "00" && parts[1] == traceID && parts[3] == "01")
        #expect(parts[2].count == 16 && parts[2].allSatisfy(\.isHexDigit))
        // Sampled away: no header.
        let sampled = Examples.ShopAPI(
            domain: server.hostAndPort, secure: false,
            options: ResourceOptions(
                observer: Examples.Sampled(observer: Examples.TraceContext(traceID: traceID), rate: 0)))
        try await Examples.whereDidTheTimeGo(sampled)
        #expect(server.requests(path: "/orders").last?.header("traceparent") == nil)
        try await Examples.placeOrder(sampled, audit: Examples.AttemptLog())
        await Examples.whatFailed(
            Examples.ShopAPI(domain: server.hostAndPort, secure: false, options: .init()))
    }
}
