import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// NetLayer's transport conformance kit against the AsyncHTTPClient transport: every scenario,
/// including those Linux URLSession cannot pass (`TransportConformance.urlSessionLimitations`),
/// must pass here.
@Suite struct ConformanceTests {
    /// One transport for every scenario, as an app keeps one: scenarios also check that a
    /// connection left behind by one call does not spoil the next.
    static let transport = AsyncHTTPClientTransport()

    @Test(arguments: TransportConformance.scenarios)
    func scenarioPasses(_ scenario: TransportConformance.Scenario) async throws {
        try await TransportConformance.run(scenario, on: Self.transport)
    }

    @Test func theScenariosURLSessionCannotPassAreAmongThemAll() {
        let ids = Set(TransportConformance.scenarios.map(\.id))
        let limited = Set(TransportConformance.urlSessionLimitations.keys).union(
            TransportConformance.urlSessionCrashes)
        #expect(limited.isSubset(of: ids))
        #expect(ids.count >= 30)
    }
}
