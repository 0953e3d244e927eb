/// Why a test did not pass, in the suite's terms: `kind` is the first element of a failed result
/// (`Assertion`, `Setup`, `AbortError`, …) and decides how `determineTestResult` scores it.
struct TestFailure: Error, Sendable {
    /// `Setup` when a check marked as setup failed (scored `setup_fail`, or `retry` with the
    /// message `retry`), `Assertion` when the cache failed a check, `AbortError` when the client
    /// gave up waiting (scored `harness_fail`), `NetLayerError` when a request failed.
    let kind: String
    /// What went wrong, as the suite's messages word it where there is one.
    let message: String

    /// Fails with `message` unless `condition` holds: a setup failure when `setup` is true, an
    /// assertion failure otherwise (the suite's `assert(isSetup, expr, message)`).
    static func check(_ condition: Bool, setup: Bool, _ message: @autoclosure () -> String)
        throws(TestFailure)
    {
        if condition { return }
        throw TestFailure(kind: setup ? "Setup" : "Assertion", message: message())
    }

    /// A field of the definitions with a shape the runner does not know: the test cannot run.
    static func malformed(_ field: String, _ value: Any) -> TestFailure {
        TestFailure(kind: "Setup", message: "cannot run: field \(field) has an unexpected value \(value)")
    }
}
