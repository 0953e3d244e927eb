import Foundation

/// One run of one test (the suite's `makeTest`): configure the server under a fresh id, send the
/// requests in order through the client under test, checking each response and pausing where the
/// test says, then compare what the server received.
struct TestRun: Sendable {
    /// How long the client waits after a request marked `pause_after` (the suite's 3 s).
    static let pause: Duration = .seconds(3)

    let test: SuiteTest
    let client: ClientUnderTest
    let server: SuiteServer

    /// Runs the test; never throws: a test that cannot run is a failed result with its reason.
    func run() async -> TestResult {
        do {
            try await runChecks()
            return .passed
        } catch {
            return .failed(error)
        }
    }

    private func runChecks() async throws(TestFailure) {
        guard !test.requests.isEmpty else {
            throw TestFailure(kind: "Setup", message: "cannot run: the test has no requests")
        }
        let uuid = UUID().uuidString.lowercased()
        try await server.configure(uuid: uuid, test: test)
        var responses: [ObservedResponse] = []
        for (index, request) in test.requests.enumerated() {
            let number = index + 1
            let response = try await client.send(
                request, number: number, uuid: uuid, test: test, previous: responses.last)
            responses.append(response)
            try ResponseChecks(request: request, number: number, uuid: uuid, response: response).run()
            if request.pausesAfter {
                // Cancellation ends the whole run; a shorter pause would only make checks fail.
                try? await Task.sleep(for: Self.pause)
            }
        }
        let received = try await server.state(uuid: uuid)
        try ServerRequestChecks(requests: test.requests, responses: responses, received: received).run()
    }
}
