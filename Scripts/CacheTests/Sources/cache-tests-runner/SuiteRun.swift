/// Runs the tests that apply to a private cache, in the definitions' order, a group at a time
/// (the suite's runner starts 25 tests together and waits for all before the next 25).
///
/// Each test runs under its own id, so tests of a group do not share server state; they do share
/// the one resource, and so its cache, as tabs of a browser share theirs. Dependencies
/// (`depends_on`) are not run order: the scoring applies them (`determineTestResult`).
struct SuiteRun: Sendable {
    let tests: [SuiteTest]
    let client: ClientUnderTest
    let server: SuiteServer
    /// How many tests run at once.
    let groupSize: Int

    /// Runs every test and returns the results by test id.
    /// - Parameter progress: Called after each group with the number of tests done and in all.
    func run(progress: (Int, Int) -> Void) async -> [String: TestResult] {
        var results: [String: TestResult] = [:]
        var start = 0
        while start < tests.count {
            let group = tests[start..<min(start + groupSize, tests.count)]
            let groupResults = await withTaskGroup(of: (String, TestResult).self) { tasks in
                for test in group {
                    let run = TestRun(test: test, client: client, server: server)
                    tasks.addTask { (test.id, await run.run()) }
                }
                var collected: [(String, TestResult)] = []
                for await result in tasks { collected.append(result) }
                return collected
            }
            for (id, result) in groupResults {
                if results[id] != nil {
                    results[id] = .failed(TestFailure(kind: "Setup", message: "duplicate test id \(id)"))
                } else {
                    results[id] = result
                }
            }
            start += group.count
            progress(start, tests.count)
        }
        return results
    }
}
