import Foundation
import NetLayer

// `httpbin-conformance HOST:PORT fuzz N SEED`: the seeded fuzzer of the test suite
// (Tests/NetLayerTests/Fuzz, compiled here through the `Fuzz` symlink) against httpbin's
// `/anything`, with httpbin's view of each request compared to the same expected view.

/// httpbin as a fuzz target. One resource per session; httpbin keeps no log, so a refused input is
/// checked by the error it throws (the in-process test also checks that nothing was sent).
struct HttpbinHarness: FuzzHarness {
    let address: String

    func makeSession() async throws -> HttpbinSession {
        HttpbinSession(resource: Resource(protocol: .http, domain: address))
    }
}

final class HttpbinSession: FuzzSession {
    let resource: Resource

    init(resource: Resource) {
        self.resource = resource
    }

    func check(_ fuzzCase: FuzzCase, tag: String) async -> [FuzzProblem] {
        let executor = FuzzCall.executor(fuzzCase, resource: resource, pathPrefix: "/anything", tag: tag)
        let outcome = await FuzzCall.send(executor)
        return FuzzHttpbinCheck.check(
            fuzzCase, outcome: outcome, path: FuzzCall.path(pathPrefix: "/anything", tag: tag))
    }

    func finish(expectedRequests: [String: Int]) async -> [String: [FuzzProblem]] { [:] }
}

/// Runs `count` cases seeded `seed` (nil: random) against httpbin at `address`; prints the report
/// and returns the exit status (0 when every case passed).
func runFuzz(address: String, count: Int, seed: UInt64?, only: Int?) async -> Int32 {
    let seed = seed ?? UInt64.random(in: 0...UInt64.max)
    say(
        "fuzz: seed \(seed), \(only.map { "case #\($0) only" } ?? "\(count) cases") against httpbin at \(address)"
    )
    var configuration = FuzzRunConfiguration(seed: seed, count: count)
    configuration.only = only
    configuration.concurrency = 8
    configuration.progress = { say("fuzz: \($0)") }
    configuration.reproduce = { seed, count, index in
        "FUZZ_SEED=\(seed) FUZZ_CASES=\(count)" + (index.map { " FUZZ_ONLY=\($0)" } ?? "")
            + " bash Scripts/httpbin-conformance.sh"
    }
    let generator = FuzzGenerator(profile: .httpbin, seed: seed)
    let report: FuzzReport
    do {
        report = try await FuzzRunner.run(
            HttpbinHarness(address: address), generator: generator, configuration: configuration)
    } catch {
        say("fuzz: cannot run: \(error)")
        return 2
    }
    say(FuzzRunner.describe(report, configuration: configuration))
    var failed = !report.failures.isEmpty
    if report.casesRun != (only == nil ? count : 1) {
        say("fuzz: FAIL ran \(report.casesRun) cases, asked for \(only == nil ? count : 1)")
        failed = true
    }
    if only == nil && count >= 2 && (report.accepted == 0 || report.refused == 0) {
        say(
            "fuzz: FAIL the run needs both accepted (\(report.accepted)) and refused (\(report.refused)) cases"
        )
        failed = true
    }
    return failed ? 1 : 0
}
