import Foundation

/// What to run and how much of it. Every count comes from an environment variable (or a flag), so a
/// quick run takes well under a minute and a full run a few minutes.
///
/// | variable | flag | full | quick |
/// | --- | --- | --- | --- |
/// | `BENCH_QUICK=1` | `--quick` | | |
/// | `BENCH_ONLY=prep\|throughput` | `--prep-only`, `--throughput-only` | both | both |
/// | `BENCH_PREP_ROUNDS` | | 20 | 5 |
/// | `BENCH_PREP_ITERATIONS` (per round and case) | | 5000 | 1000 |
/// | `BENCH_PREP_CASES` (comma-separated case ids) | | all | all |
/// | `BENCH_ROUNDS` (per client and mode) | | 7 | 5 |
/// | `BENCH_SEQ_REQUESTS` (per round) | | 2000 | 200 |
/// | `BENCH_CONC_REQUESTS` (per round) | | 8000 | 800 |
/// | `BENCH_CONCURRENCY` | | 32 | 32 |
/// | `BENCH_SLICES` (interleaved slices per round) | | 10 | 4 |
struct Config: CustomStringConvertible {
    var quick: Bool
    var runPrep: Bool
    var runThroughput: Bool
    var prepRounds: Int
    var prepIterations: Int
    var rounds: Int
    var sequentialRequests: Int
    var concurrentRequests: Int
    var concurrency: Int
    var slices: Int
    var prepCases: Set<String>?
    /// `BENCH_PROFILE_CLIENT=urlsession|netlayer`: instead of the benchmark, send
    /// `BENCH_PROFILE_REQUESTS` (default 500) requests with that client alone, for a profiler, from
    /// `BENCH_PROFILE_CONCURRENCY` tasks (default 1: sequential).
    var profileClient: String?
    var profileRequests: Int
    var profileConcurrency: Int

    static func load(
        arguments: [String] = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Config {
        let quick =
            arguments.contains("--quick")
            || environment["BENCH_QUICK"].map { $0 != "0" && !$0.isEmpty } == true
        var only = environment["BENCH_ONLY"] ?? ""
        if arguments.contains("--prep-only") { only = "prep" }
        if arguments.contains("--throughput-only") { only = "throughput" }
        for argument in arguments.dropFirst() where argument.hasPrefix("--") {
            let known = ["--quick", "--prep-only", "--throughput-only"]
            if !known.contains(argument) {
                fail(
                    "unknown flag \(argument); known: \(known.joined(separator: " ")) (counts come from BENCH_* variables)"
                )
            }
        }
        if let client = environment["BENCH_PROFILE_CLIENT"], !["urlsession", "netlayer"].contains(client) {
            fail("BENCH_PROFILE_CLIENT must be urlsession or netlayer, not \(client)")
        }
        if !["", "prep", "throughput"].contains(only) {
            fail("BENCH_ONLY must be prep or throughput, not \(only)")
        }

        func count(_ name: String, full: Int, quick quickValue: Int, minimum: Int = 1) -> Int {
            guard let text = environment[name] else { return quick ? quickValue : full }
            guard let value = Int(text), value >= minimum else {
                fail("\(name) must be an integer >= \(minimum), not \(text)")
            }
            return value
        }
        return Config(
            quick: quick,
            runPrep: only != "throughput",
            runThroughput: only != "prep",
            prepRounds: count("BENCH_PREP_ROUNDS", full: 20, quick: 5),
            prepIterations: count("BENCH_PREP_ITERATIONS", full: 5000, quick: 1000),
            rounds: count("BENCH_ROUNDS", full: 7, quick: 5),
            sequentialRequests: count("BENCH_SEQ_REQUESTS", full: 2000, quick: 200),
            concurrentRequests: count("BENCH_CONC_REQUESTS", full: 8000, quick: 800),
            concurrency: count("BENCH_CONCURRENCY", full: 32, quick: 32),
            slices: count("BENCH_SLICES", full: 10, quick: 4),
            prepCases: environment["BENCH_PREP_CASES"].map { Set($0.split(separator: ",").map(String.init)) },
            profileClient: environment["BENCH_PROFILE_CLIENT"],
            profileRequests: count("BENCH_PROFILE_REQUESTS", full: 500, quick: 500),
            profileConcurrency: count("BENCH_PROFILE_CONCURRENCY", full: 1, quick: 1)
        )
    }

    var description: String {
        var parts = ["mode=\(quick ? "quick" : "full")"]
        if runPrep { parts.append("prep: \(prepRounds) rounds x \(prepIterations) calls per case") }
        if runThroughput {
            parts.append(
                "throughput: \(rounds) rounds per client, sequential \(sequentialRequests) req/round, "
                    + "concurrent \(concurrentRequests) req/round over \(concurrency) tasks, "
                    + "each round run in \(slices) slices interleaved with the other client's")
        }
        return parts.joined(separator: "; ")
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("netlayer-bench: \(message)\n".utf8))
    exit(2)
}
