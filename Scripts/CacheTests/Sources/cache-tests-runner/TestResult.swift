/// One test's result in the suite's results format: `true`, or `[kind, message]`.
enum TestResult: Sendable, Encodable {
    /// Every check passed.
    case passed
    /// A check failed or the test could not run.
    case failed(TestFailure)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .passed: try container.encode(true)
        case .failed(let failure): try container.encode([failure.kind, failure.message])
        }
    }
}
