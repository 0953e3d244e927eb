import Foundation
import NetLayer

/// The wire scenarios every `Transport` must pass, so NetLayer behaves the same whichever
/// transport carries its calls (DESIGN §19): framing and lengths, malformed responses, 204/304
/// and HEAD with a length, compression, repeated and empty fields, redirects left to NetLayer,
/// cancellation, drip-fed and large bodies, concurrency and timeouts.
///
/// Each scenario starts its own ``LoopbackServer`` on 127.0.0.1, sends through the transport
/// (directly with `Transport.send(_:context:)`, and for redirects through a NetLayer
/// `Resource` that uses it), checks both what the client got and what the server received, and
/// stops the server. A scenario takes a few seconds at most; one that does not end within 30
/// seconds fails. Run them from any test framework:
///
/// ```swift
/// @Test(arguments: TransportConformance.scenarios)
/// func conforms(_ scenario: TransportConformance.Scenario) async throws {
///     try await TransportConformance.run(scenario, on: MyTransport())
/// }
/// ```
///
/// A transport that stops the process on a response (as Linux URLSession does on a chunked body
/// with trailers, see ``urlSessionCrashes``) stops the test run too: run such a scenario in a
/// child process, or leave it out.
public enum TransportConformance {
    /// One scenario: a stable id and what it checks.
    public struct Scenario: Sendable, Hashable, CustomStringConvertible {
        /// A stable id, `<group>.<name>`, for example `framing.content-length-bytes`.
        public let id: String
        /// What the scenario checks, in one sentence.
        public let summary: String

        init(_ id: String, _ summary: String) {
            self.id = id
            self.summary = summary
        }

        /// The ``id``, so test reports name the scenario.
        public var description: String { id }
    }

    /// Every scenario, in a stable order.
    public static var scenarios: [Scenario] { catalog.map(\.scenario) }

    /// The scenario with this id; `nil` when there is none.
    /// - Parameter id: For example `redirect.returned-as-is`.
    public static func scenario(id: String) -> Scenario? {
        catalog.first { $0.scenario.id == id }?.scenario
    }

    /// Runs one scenario against `transport`.
    /// - Parameters:
    ///   - scenario: One of ``scenarios``.
    ///   - transport: The transport under test; it may be shared by scenarios running at once.
    /// - Throws: ``ConformanceFailure`` when the transport does something the scenario does not
    ///   allow (or the scenario does not end within 30 seconds); the loopback server's error when
    ///   it cannot start; `CancellationError` when the calling task is cancelled.
    public static func run(_ scenario: Scenario, on transport: any Transport) async throws {
        guard let entry = catalog.first(where: { $0.scenario.id == scenario.id }) else {
            throw ConformanceFailure(
                scenario: scenario.id, expected: "one of TransportConformance.scenarios",
                actual: "an unknown scenario")
        }
        let probe = try Probe(scenario: scenario, transport: transport)
        defer { probe.server.stop() }
        try await probe.within(.seconds(30), "the scenario to end") {
            try await entry.body(probe)
        }
    }

    /// One scenario and the code that runs it.
    struct Entry: Sendable {
        let scenario: Scenario
        let body: @Sendable (Probe) async throws -> Void

        init(_ id: String, _ summary: String, _ body: @escaping @Sendable (Probe) async throws -> Void) {
            self.scenario = Scenario(id, summary)
            self.body = body
        }
    }

    /// Every scenario with its code, in the order of ``scenarios``.
    static let catalog: [Entry] =
        framingScenarios + malformedScenarios + bodyScenarios + fieldScenarios + redirectScenarios
        + flowScenarios
}
