/// A transport did something a ``TransportConformance`` scenario does not allow: what the
/// scenario expected, and what happened instead.
///
/// ```swift
/// do {
///     try await TransportConformance.run(scenario, on: MyTransport())
/// } catch let failure as ConformanceFailure {
///     print(failure)  // framing.content-length-bytes: expected …; got …
/// }
/// ```
public struct ConformanceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The id of the scenario that failed, for example `redirect.returned-as-is`.
    public let scenario: String
    /// What the scenario expected, in words.
    public let expected: String
    /// What happened instead, in words (an error is described with its type and message).
    public let actual: String

    /// Creates a failure.
    /// - Parameters:
    ///   - scenario: The scenario's id.
    ///   - expected: What it expected.
    ///   - actual: What happened.
    public init(scenario: String, expected: String, actual: String) {
        self.scenario = scenario
        self.expected = expected
        self.actual = actual
    }

    /// `<scenario>: expected <expected>; got <actual>`.
    public var description: String { "\(scenario): expected \(expected); got \(actual)" }
}
