import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// NetLayer's default transport against the public conformance kit (DESIGN §19). A scenario
    /// the platform's URLSession is known to fail (`urlSessionLimitations`) runs as a known issue,
    /// so this test notices when a toolchain starts passing it; one that stops the process
    /// (`urlSessionCrashes`) is not run here (`TransferWithoutResponseCrashTests` runs that
    /// response in a child process).
    @Suite("Transport conformance: URLSessionTransport", .timeLimit(.minutes(3)))
    struct TransportConformanceTests {
        static let transport = URLSessionTransport()

        @Test(arguments: TransportConformance.scenarios)
        func urlSessionTransport(_ scenario: TransportConformance.Scenario) async throws {
            if TransportConformance.urlSessionCrashes.contains(scenario.id) {
                let reason = TransportConformance.urlSessionLimitations[scenario.id] ?? "stops the process"
                print("TransportConformance: not run against URLSessionTransport: \(scenario.id): \(reason)")
                return
            }
            if let reason = TransportConformance.urlSessionLimitations[scenario.id] {
                print("TransportConformance: known URLSessionTransport limitation: \(scenario.id): \(reason)")
                await withKnownIssue(Comment(rawValue: reason)) {
                    try await TransportConformance.run(scenario, on: Self.transport)
                }
                return
            }
            try await TransportConformance.run(scenario, on: Self.transport)
        }

        @Test func scenarioIDsAreUniqueAndEveryLimitationNamesOne() {
            let ids = TransportConformance.scenarios.map(\.id)
            #expect(Set(ids).count == ids.count)
            #expect(ids.count >= 25)
            for id in TransportConformance.urlSessionLimitations.keys {
                #expect(TransportConformance.scenario(id: id) != nil, "\(id) is not a scenario")
            }
            #expect(
                TransportConformance.urlSessionCrashes.isSubset(
                    of: TransportConformance.urlSessionLimitations.keys))
        }
    }

    /// The kit's expectations can fail: a transport that breaks a rule fails the scenario about it
    /// with a ``ConformanceFailure`` naming the scenario.
    @Suite("Transport conformance: a broken transport fails", .timeLimit(.minutes(1)))
    struct TransportConformanceDetectsBrokenTransports {
        static let inner = URLSessionTransport()

        /// Runs `id` on `transport` and returns the failure it must give.
        func failure(of id: String, on transport: any Transport) async throws -> ConformanceFailure? {
            let scenario = try #require(TransportConformance.scenario(id: id))
            let failure = await #expect(throws: ConformanceFailure.self) {
                try await TransportConformance.run(scenario, on: transport)
            }
            #expect(failure?.scenario == id)
            return failure
        }

        @Test func aTransportThatFollowsRedirects() async throws {
            let failure = try await failure(of: "redirect.returned-as-is", on: Following(inner: Self.inner))
            #expect(failure?.expected.contains("returned as is") == true, "\(String(describing: failure))")
        }

        @Test func aTransportThatKeepsOneValuePerName() async throws {
            let failure = try await failure(of: "fields.repeated-response", on: Collapsing(inner: Self.inner))
            #expect(failure?.actual.contains("Set-Cookie") == true, "\(String(describing: failure))")
        }

        @Test func aTransportThatIgnoresTimeouts() async throws {
            let failure = try await failure(of: "timeout.idle", on: Untimed(inner: Self.inner))
            #expect(failure?.expected.contains(".timedOut") == true, "\(String(describing: failure))")
        }

        @Test func anUnknownScenarioFails() async throws {
            let scenarios = TransportConformance.scenarios
            #expect(TransportConformance.scenario(id: "no.such-scenario") == nil)
            #expect(scenarios.allSatisfy { $0.description == $0.id && !$0.summary.isEmpty })
        }

        /// Follows a 3xx with a Location itself (what URLSession does unless told not to).
        struct Following: Transport {
            let inner: any Transport
            func send(_ request: TransportRequest, context: TransportContext) async throws
                -> TransportResponse
            {
                let response = try await inner.send(request, context: context)
                guard (300..<400).contains(response.head.statusCode),
                    let location = response.head.headerFields["Location"],
                    let next = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { return response }
                response.body.cancel()
                return try await inner.send(TransportRequest(method: .get, url: next), context: context)
            }
        }

        /// Keeps the first value of each field name (a dictionary of fields).
        struct Collapsing: Transport {
            let inner: any Transport
            func send(_ request: TransportRequest, context: TransportContext) async throws
                -> TransportResponse
            {
                let response = try await inner.send(request, context: context)
                var seen = Set<String>()
                let fields = response.head.headerFields.filter { seen.insert($0.name.lowercased()).inserted }
                let head = ResponseHead(
                    statusCode: response.head.statusCode,
                    headerFields: HeaderFields(received: fields.map { (name: $0.name, value: $0.value) }),
                    url: response.head.url)
                return TransportResponse(head: head, body: response.body)
            }
        }

        /// Drops the context's timeouts.
        struct Untimed: Transport {
            let inner: any Transport
            func send(_ request: TransportRequest, context: TransportContext) async throws
                -> TransportResponse
            {
                var context = context
                context.timeouts = Timeouts()
                return try await inner.send(request, context: context)
            }
        }
    }
}
