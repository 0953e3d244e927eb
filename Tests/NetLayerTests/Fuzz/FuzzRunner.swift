/// Somewhere to send cases: the in-process test server, or httpbin.
protocol FuzzHarness: Sendable {
    associatedtype Session: FuzzSession
    /// A fresh session; the runner uses one per few thousand cases and one per shrink.
    func makeSession() async throws -> Session
}

/// One stretch of a run against a harness.
protocol FuzzSession: Sendable {
    /// Sends `fuzzCase` at a path holding `tag` and returns every problem found.
    func check(_ fuzzCase: FuzzCase, tag: String) async -> [FuzzProblem]
    /// Called once every call of the session has ended, with the number of requests each tag
    /// should have produced: problems found only now (a request that arrived after its call
    /// ended), by tag. Then the session releases what it holds.
    func finish(expectedRequests: [String: Int]) async -> [String: [FuzzProblem]]
}

struct FuzzRunConfiguration: Sendable {
    var seed: UInt64
    var count: Int
    /// Run only this case index (to reproduce one case).
    var only: Int?
    /// Calls in flight at once.
    var concurrency = 12
    /// Cases per session.
    var sessionSize = 5000
    /// At most this many failure kinds are shrunk (each shrink re-runs up to `shrinkBudget` cases).
    var shrinkKinds = 16
    var shrinkBudget = 600
    /// Called now and then with a progress line.
    var progress: @Sendable (String) -> Void = { _ in }
    /// How to rerun, for the report: given the seed, the count and (for one case) an index.
    var reproduce: @Sendable (UInt64, Int, Int?) -> String = { seed, count, index in
        "seed \(seed), \(count) cases" + (index.map { ", case #\($0)" } ?? "")
    }
}

/// Failures of one kind: where they occurred and the shrunk first one.
struct FuzzFailureGroup: Sendable {
    var kind: String
    var indexes: [Int]
    var original: FuzzCase
    var originalProblems: [FuzzProblem]
    var shrunk: FuzzCase?
    var shrunkProblems: [FuzzProblem] = []
    var shrinkRuns = 0
    var reproduced = true
}

struct FuzzReport: Sendable {
    var profile: String
    var seed: UInt64
    var casesRun = 0
    var accepted = 0
    var refused = 0
    var seconds = 0.0
    var failures: [FuzzFailureGroup] = []
    var failedCases: Int { Set(failures.flatMap(\.indexes)).count }
}

enum FuzzRunner {
    /// Runs the cases of `configuration` against `harness`, then shrinks the first failure of each kind.
    static func run<Harness: FuzzHarness>(
        _ harness: Harness, generator: FuzzGenerator, configuration: FuzzRunConfiguration
    ) async throws -> FuzzReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = FuzzReport(profile: generator.profile.name, seed: generator.seed)
        let indexes = configuration.only.map { [$0] } ?? Array(0..<configuration.count)
        var problemsByIndex: [Int: [FuzzProblem]] = [:]

        for chunkStart in stride(from: 0, to: indexes.count, by: configuration.sessionSize) {
            let chunk = Array(
                indexes[chunkStart..<min(indexes.count, chunkStart + configuration.sessionSize)])
            let session = try await harness.makeSession()
            var expectedRequests: [String: Int] = [:]
            await withTaskGroup(of: (Int, Bool, [FuzzProblem]).self) { group in
                var next = 0
                func launch(_ group: inout TaskGroup<(Int, Bool, [FuzzProblem])>) {
                    let index = chunk[next]
                    next += 1
                    group.addTask {
                        let fuzzCase = generator.makeCase(index)
                        let refused = !FuzzRefusal.all(in: fuzzCase).isEmpty
                        return (index, refused, await session.check(fuzzCase, tag: "c\(index)"))
                    }
                }
                for _ in 0..<min(configuration.concurrency, chunk.count) { launch(&group) }
                while let (index, refused, problems) = await group.next() {
                    report.casesRun += 1
                    if refused { report.refused += 1 } else { report.accepted += 1 }
                    expectedRequests["c\(index)"] = refused ? 0 : 1
                    if !problems.isEmpty { problemsByIndex[index] = problems }
                    if report.casesRun % 10_000 == 0 {
                        configuration.progress("\(report.casesRun) cases, \(problemsByIndex.count) failing")
                    }
                    if next < chunk.count { launch(&group) }
                }
            }
            for (tag, late) in await session.finish(expectedRequests: expectedRequests) where !late.isEmpty {
                if let index = Int(tag.dropFirst()) { problemsByIndex[index, default: []] += late }
            }
        }

        // Group by the kind of each case's first problem, in case order.
        var groups: [FuzzFailureGroup] = []
        for index in problemsByIndex.keys.sorted() {
            let problems = problemsByIndex[index] ?? []
            guard let kind = problems.first?.kind else { continue }
            if let position = groups.firstIndex(where: { $0.kind == kind }) {
                groups[position].indexes.append(index)
            } else {
                groups.append(
                    FuzzFailureGroup(
                        kind: kind, indexes: [index], original: generator.makeCase(index),
                        originalProblems: problems))
            }
        }
        let shrinker = FuzzShrinker(profile: generator.profile, budget: configuration.shrinkBudget)
        for position in groups.indices.prefix(configuration.shrinkKinds) {
            configuration.progress(
                "shrinking failure kind \"\(groups[position].kind)\" from case #\(groups[position].indexes[0])"
            )
            let session = try await harness.makeSession()
            var run = 0
            let check = { (candidate: FuzzCase) async -> [FuzzProblem] in
                run += 1
                return await session.check(candidate, tag: "k\(position)r\(run)")
            }
            let again = await check(groups[position].original)
            groups[position].reproduced = again.contains { $0.kind == groups[position].kind }
            if groups[position].reproduced {
                let (shrunk, problems, runs) = await shrinker.shrink(
                    groups[position].original, kind: groups[position].kind, problems: again, check: check)
                groups[position].shrunk = shrunk
                groups[position].shrunkProblems = problems
                groups[position].shrinkRuns = runs
            }
            _ = await session.finish(expectedRequests: [:])
        }
        report.failures = groups
        report.seconds = (clock.now - start).fuzzSeconds
        return report
    }

    /// The report as text: a summary line, then each failure kind with its minimal case.
    static func describe(_ report: FuzzReport, configuration: FuzzRunConfiguration) -> String {
        var lines: [String] = []
        let ran = "\(report.casesRun) cases (\(report.accepted) accepted, \(report.refused) refused)"
        let time = String(Int(report.seconds * 10) / 10) + "." + String(Int(report.seconds * 10) % 10) + " s"
        if report.failures.isEmpty {
            lines.append(
                "NetLayer fuzz against the \(report.profile): seed \(report.seed), \(ran) in \(time): all passed"
            )
            return lines.joined(separator: "\n")
        }
        lines.append(
            "NetLayer fuzz against the \(report.profile): seed \(report.seed), \(ran) in \(time): "
                + "\(report.failedCases) failed, \(report.failures.count) kind(s) of failure")
        lines.append("reproduce the run: " + configuration.reproduce(report.seed, configuration.count, nil))
        for (number, group) in report.failures.enumerated() {
            lines.append("")
            let shown =
                group.indexes.prefix(8).map { "#\($0)" }.joined(separator: ", ")
                + (group.indexes.count > 8 ? ", …" : "")
            lines.append(
                "FAILURE \(number + 1) of \(report.failures.count): [\(group.kind)] "
                    + "in \(group.indexes.count) case(s): \(shown)"
            )
            lines.append(
                "reproduce case #\(group.indexes[0]): "
                    + configuration.reproduce(report.seed, configuration.count, group.indexes[0]))
            if let shrunk = group.shrunk {
                lines.append(
                    "minimal case (shrunk from #\(group.indexes[0]) in \(group.shrinkRuns) re-runs):")
                lines.append(shrunk.swiftSource.fuzzIndented)
                lines.append("its problems:")
                lines += group.shrunkProblems.map { "  - \($0)" }
            } else if !group.reproduced {
                lines.append("(did not fail again when re-run alone; not shrunk)")
            }
            lines.append("original case #\(group.indexes[0]):")
            lines.append(group.original.swiftSource.fuzzIndented)
            lines.append("its problems:")
            lines += group.originalProblems.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate var fuzzIndented: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
    }
}

extension Duration {
    var fuzzSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
