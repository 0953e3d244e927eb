import Foundation

/// What to run and how much of it. Every count comes from an environment variable (or a flag), so a
/// quick run takes well under a minute and a full run a few minutes.
///
/// | variable | flag | full | quick |
/// | --- | --- | --- | --- |
/// | `BENCH_QUICK=1` | `--quick` | | |
/// | `BENCH_ONLY=prep\|throughput\|transfers\|events\|json\|ahc\|cache\|latency` | `--prep-only`, `--throughput-only`, `--transfers-only`, `--events-only`, `--json-only`, `--ahc-only`, `--cache-only`, `--latency-only` | all but latency | all but latency |
/// | `BENCH_LATENCY_BLOCKS` (rotations of the latency diagnostic, 25 requests per client each) | | 300 | 60 |
/// | `BENCH_PREP_ROUNDS` | | 20 | 5 |
/// | `BENCH_PREP_ITERATIONS` (per round and case) | | 5000 | 1000 |
/// | `BENCH_PREP_CASES` (comma-separated case ids) | | all | all |
/// | `BENCH_ROUNDS` (per client and mode) | | 15 | 5 |
/// | `BENCH_SEQ_REQUESTS` (per round) | | 2000 | 200 |
/// | `BENCH_CONC_REQUESTS` (per round) | | 8000 | 800 |
/// | `BENCH_CONCURRENCY` | | 32 | 32 |
/// | `BENCH_SLICES` (interleaved slices per round) | | 10 | 4 |
/// | `BENCH_TRANSFER_BYTES` (bytes per transfer) | | 1 GiB | 128 MiB |
/// | `BENCH_TRANSFER_ROUNDS` (ABBA pairs per transfer kind) | | 6 | 2 |
/// | `BENCH_TRANSFER_KINDS` (comma-separated: multipart, file, download) | | all | all |
/// | `BENCH_TRANSFER_PARTS` (comma-separated: memory, throughput) | | both | both |
/// | `BENCH_TRANSFER_BASELINE` (`plain`, or the diagnostics `delegate`, `downloadtask`, `spooled`; see README) | | plain | plain |
/// | `BENCH_TRANSFER_PREFAULT=1` (diagnostic: memory freed just before each measured transfer; see README) | | off | off |
/// | `BENCH_THROUGHPUT_CONTENDER` (diagnostic: what runs against raw URLSession in the throughput part; `netlayer-unlimited`: NetLayer with `maximumResponseSize: nil`) | | netlayer | netlayer |
/// | `BENCH_BASELINE_CONFIGURATION` (`same`: NetLayer's default configuration; `foundation`: `URLSessionConfiguration.default`) | | same | same |
/// | `BENCH_AHC_CONCURRENCY` (AHC part: comma-separated concurrent task counts) | | 32,256 | 32,256 |
/// | `BENCH_AHC_CONNECTIONS` (AHC part: comma-separated connections per host; the first is the headline) | | 8 | 8 |
/// | `BENCH_AHC_PARTS` (AHC part: comma-separated: throughput, timeout, urlsession, transfers) | | all | all |
struct Config: CustomStringConvertible {
    var quick: Bool
    var runPrep: Bool
    var runThroughput: Bool
    var runTransfers: Bool
    /// The event-stream parsing part (`--events-only`, `BENCH_ONLY=events`; see
    /// EventStreamBenchmark.swift for its `BENCH_EVENTS_*` variables).
    var runEvents: Bool
    /// The JSON decoding part (`--json-only`, `BENCH_ONLY=json`; see JSONBenchmark.swift for its
    /// `BENCH_JSON_*` variables).
    var runJSON: Bool
    /// The AsyncHTTPClient part (`--ahc-only`, `BENCH_ONLY=ahc`; see AHCBenchmark.swift): NetLayer
    /// over its AsyncHTTPClient transport against raw AsyncHTTPClient.
    var runAHC: Bool
    /// Concurrent task counts of the AHC part's GET comparisons (`BENCH_AHC_CONCURRENCY`).
    var ahcConcurrencies: [Int]
    /// Connections per host of both AHC clients (`BENCH_AHC_CONNECTIONS`), one set of concurrent
    /// comparisons each; the first (default 8, the transport's default) carries the goals.
    var ahcConnections: [Int]
    /// `BENCH_AHC_PARTS`: which comparisons of the AHC part run.
    var ahcParts: Set<AHCPart>
    /// The cache part (`--cache-only`, `BENCH_ONLY=cache`; see CacheBenchmark.swift): a cache hit
    /// against a loopback round trip.
    var runCache: Bool
    /// The layer-by-layer latency diagnostic (`--latency-only`, `BENCH_ONLY=latency`; never part of a
    /// full run). See LatencyBenchmark.swift.
    var runLatency: Bool
    var latencyBlocks: Int
    var prepRounds: Int
    var prepIterations: Int
    var rounds: Int
    var sequentialRequests: Int
    var concurrentRequests: Int
    var concurrency: Int
    var slices: Int
    var prepCases: Set<String>?
    /// Bytes moved by each transfer (upload source size, download size).
    var transferBytes: Int64
    /// ABBA pairs per transfer kind in the transfer throughput part.
    var transferRounds: Int
    var transferKinds: [TransferKind]
    var transferMemory: Bool
    var transferThroughput: Bool
    /// `BENCH_TRANSFER_BASELINE`: what raw URLSession does in the transfer part (the goals use `plain`).
    var transferBaseline: TransferBaseline
    /// `BENCH_TRANSFER_PREFAULT=1`, a diagnostic: before every measured transfer, untimed, a file
    /// as large as the transfer (plus 64 MiB) is written and deleted (see TransferBenchmark).
    var transferPrefault: Bool
    /// `BENCH_PROFILE_CLIENT=urlsession|netlayer|transport|delegate-…`: instead of the benchmark, send
    /// `BENCH_PROFILE_REQUESTS` (default 500) requests with that client alone, for a profiler, from
    /// `BENCH_PROFILE_CONCURRENCY` tasks (default 1: sequential); `cache-hit` answers every call
    /// from a fresh ``HTTPCache`` entry. `canned-inplace` instead times
    /// `BENCH_PROFILE_REQUESTS` canned calls and decodes, each after a real GET (see InPlaceProfile).
    var profileClient: String?
    /// `BENCH_THROUGHPUT_CONTENDER`, a diagnostic: what runs against raw URLSession in the throughput
    /// part. `netlayer` (the default): NetLayer. `delegate-serial|delegate-concurrent|delegate-none`:
    /// raw URLSession on a session with a redirect-refusing delegate and that delegate queue, which
    /// prices the delegate alone. `transport`: NetLayer's `URLSessionTransport` without an executor.
    /// `spin-N`: raw URLSession plus N µs of busy CPU per request, which prices client CPU itself.
    /// `urlsession`: raw URLSession on NetLayer's default configuration; against a `foundation`
    /// baseline it prices Foundation's default configuration. `netlayer-foundation`: NetLayer on a
    /// transport with `URLSessionConfiguration.default` (against a `foundation` baseline: both
    /// clients as they were before NetLayer's default dropped the `URLCache` on Linux).
    /// `urlsession-fresh`: raw URLSession on the baseline's configuration with a new `URLRequest`
    /// per call.
    var throughputContender: String
    /// `BENCH_BASELINE_CONFIGURATION`: the configuration of the raw URLSession clients in the
    /// throughput part (and of the diagnostic contenders made of raw URLSession).
    var baselineConfiguration: BaselineConfiguration
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
        if arguments.contains("--transfers-only") { only = "transfers" }
        if arguments.contains("--events-only") { only = "events" }
        if arguments.contains("--json-only") { only = "json" }
        if arguments.contains("--latency-only") { only = "latency" }
        if arguments.contains("--ahc-only") { only = "ahc" }
        if arguments.contains("--cache-only") { only = "cache" }
        for argument in arguments.dropFirst() where argument.hasPrefix("--") {
            let known = [
                "--quick", "--prep-only", "--throughput-only", "--transfers-only", "--events-only",
                "--json-only", "--ahc-only", "--latency-only", "--cache-only",
            ]
            if !known.contains(argument) {
                fail(
                    "unknown flag \(argument); known: \(known.joined(separator: " ")) (counts come from BENCH_* variables)"
                )
            }
        }
        let profileClients =
            [
                "urlsession", "netlayer", "netlayer-foundation", "transport", "canned", "canned-decode",
                "canned-inplace", "cache-hit",
            ]
            + URLSessionDelegateClient.Queue.allCases.map { "delegate-\($0.rawValue)" }
        if let client = environment["BENCH_PROFILE_CLIENT"], !profileClients.contains(client) {
            fail(
                "BENCH_PROFILE_CLIENT must be one of \(profileClients.joined(separator: ", ")), not \(client)"
            )
        }
        if !["", "prep", "throughput", "transfers", "events", "json", "ahc", "latency", "cache"].contains(
            only)
        {
            fail(
                "BENCH_ONLY must be prep, throughput, transfers, events, json, ahc, latency or cache, not \(only)"
            )
        }
        func list(_ name: String, allowed: [String]) -> [String] {
            guard let text = environment[name] else { return allowed }
            let items = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            if let unknown = items.first(where: { !allowed.contains($0) }) {
                fail("\(name): unknown item \(unknown); known: \(allowed.joined(separator: ","))")
            }
            return allowed.filter { items.contains($0) }
        }
        let kinds = list("BENCH_TRANSFER_KINDS", allowed: TransferKind.allCases.map(\.rawValue))
        let parts = list("BENCH_TRANSFER_PARTS", allowed: ["memory", "throughput"])
        let ahcParts = list("BENCH_AHC_PARTS", allowed: AHCPart.allCases.map(\.rawValue))
        let contender = environment["BENCH_THROUGHPUT_CONTENDER"] ?? "netlayer"
        let contenders =
            [
                "netlayer", "netlayer-unlimited", "transport", "urlsession", "urlsession-fresh",
                "netlayer-foundation", "tracing-noop", "tracing-inmemory",
            ]
            + URLSessionDelegateClient.Queue.allCases.map { "delegate-\($0.rawValue)" }
        let spins = contender.hasPrefix("spin-") && (Int(contender.dropFirst("spin-".count)) ?? -1) >= 0
        if !contenders.contains(contender) && !spins {
            fail(
                "BENCH_THROUGHPUT_CONTENDER must be one of \(contenders.joined(separator: ", ")) or spin-N, not \(contender)"
            )
        }
        let configurationName = environment["BENCH_BASELINE_CONFIGURATION"] ?? "same"
        guard let baselineConfiguration = BaselineConfiguration(rawValue: configurationName) else {
            fail("BENCH_BASELINE_CONFIGURATION must be same or foundation, not \(configurationName)")
        }
        let baselineName = environment["BENCH_TRANSFER_BASELINE"] ?? "plain"
        guard let baseline = TransferBaseline(rawValue: baselineName) else {
            fail(
                "BENCH_TRANSFER_BASELINE must be plain, delegate, downloadtask or spooled, not \(baselineName)"
            )
        }

        func count(_ name: String, full: Int, quick quickValue: Int, minimum: Int = 1) -> Int {
            guard let text = environment[name] else { return quick ? quickValue : full }
            guard let value = Int(text), value >= minimum else {
                fail("\(name) must be an integer >= \(minimum), not \(text)")
            }
            return value
        }
        func counts(_ name: String, default value: [Int]) -> [Int] {
            guard let text = environment[name] else { return value }
            let items = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !items.isEmpty, items.allSatisfy({ ($0 ?? 0) >= 1 }) else {
                fail("\(name) must be comma-separated integers >= 1, not \(text)")
            }
            return items.compactMap { $0 }
        }
        return Config(
            quick: quick,
            runPrep: only == "" || only == "prep",
            runThroughput: only == "" || only == "throughput",
            runTransfers: only == "" || only == "transfers",
            runEvents: only == "" || only == "events",
            runJSON: only == "" || only == "json",
            runAHC: only == "" || only == "ahc",
            ahcConcurrencies: counts("BENCH_AHC_CONCURRENCY", default: [32, 256]),
            ahcConnections: counts("BENCH_AHC_CONNECTIONS", default: [8]),
            ahcParts: Set(ahcParts.compactMap(AHCPart.init(rawValue:))),
            runCache: only == "" || only == "cache",
            runLatency: only == "latency",
            latencyBlocks: count("BENCH_LATENCY_BLOCKS", full: 300, quick: 60),
            prepRounds: count("BENCH_PREP_ROUNDS", full: 20, quick: 5),
            prepIterations: count("BENCH_PREP_ITERATIONS", full: 5000, quick: 1000),
            rounds: count("BENCH_ROUNDS", full: 15, quick: 5),
            sequentialRequests: count("BENCH_SEQ_REQUESTS", full: 2000, quick: 200),
            concurrentRequests: count("BENCH_CONC_REQUESTS", full: 8000, quick: 800),
            concurrency: count("BENCH_CONCURRENCY", full: 32, quick: 32),
            slices: count("BENCH_SLICES", full: 10, quick: 4),
            prepCases: environment["BENCH_PREP_CASES"].map { Set($0.split(separator: ",").map(String.init)) },
            transferBytes: Int64(count("BENCH_TRANSFER_BYTES", full: 1 << 30, quick: 128 << 20)),
            transferRounds: count("BENCH_TRANSFER_ROUNDS", full: 6, quick: 2),
            transferKinds: kinds.compactMap(TransferKind.init(rawValue:)),
            transferMemory: parts.contains("memory"),
            transferThroughput: parts.contains("throughput"),
            transferBaseline: baseline,
            transferPrefault: environment["BENCH_TRANSFER_PREFAULT"] == "1",
            profileClient: environment["BENCH_PROFILE_CLIENT"],
            throughputContender: contender,
            baselineConfiguration: baselineConfiguration,
            profileRequests: count("BENCH_PROFILE_REQUESTS", full: 500, quick: 500),
            profileConcurrency: count("BENCH_PROFILE_CONCURRENCY", full: 1, quick: 1)
        )
    }

    var description: String {
        var parts = ["mode=\(quick ? "quick" : "full")"]
        if runLatency {
            parts.append("latency diagnostic: \(latencyBlocks) rotations of 25 requests per client")
        }
        if runPrep { parts.append("prep: \(prepRounds) rounds x \(prepIterations) calls per case") }
        if runThroughput {
            parts.append(
                "throughput: \(rounds) rounds per client, sequential \(sequentialRequests) req/round, "
                    + "concurrent \(concurrentRequests) req/round over \(concurrency) tasks, "
                    + "each round run in \(slices) slices interleaved with the other client's")
        }
        if runTransfers {
            parts.append(
                "transfers: \(transferKinds.map(\.rawValue).joined(separator: ",")) of \(transferBytes) bytes, "
                    + [
                        transferMemory ? "peak RSS in a fresh process each" : nil,
                        transferThroughput ? "\(transferRounds) ABBA pairs each" : nil,
                        transferBaseline == .plain
                            ? nil : "URLSession baseline \(transferBaseline.rawValue) (diagnostic)",
                        transferPrefault ? "memory freed just before each transfer (diagnostic)" : nil,
                    ]
                    .compactMap { $0 }.joined(separator: ", "))
        }
        if runAHC {
            parts.append(
                "ahc: \(ahcParts.sorted { $0.rawValue < $1.rawValue }.map(\.rawValue).joined(separator: ",")), "
                    + "concurrency \(ahcConcurrencies.map(String.init).joined(separator: ",")), "
                    + "\(ahcConnections.map(String.init).joined(separator: ",")) connections per host")
        }
        return parts.joined(separator: "; ")
    }
}

/// The comparisons of the AsyncHTTPClient part (`BENCH_AHC_PARTS`).
enum AHCPart: String, CaseIterable {
    /// GET+decode: raw AsyncHTTPClient against NetLayer over the AsyncHTTPClient transport.
    case throughput
    /// GET+decode: raw AsyncHTTPClient against NetLayer over the transport with an idle timeout (the
    /// transport's timed path).
    case timeout
    /// GET+decode: NetLayer over the URLSession transport against NetLayer over AsyncHTTPClient.
    case urlsession
    /// Peak RSS and throughput of the transfers (`BENCH_TRANSFER_*`) over AsyncHTTPClient.
    case transfers
}

/// How raw URLSession transfers in the transfer part (`BENCH_TRANSFER_BASELINE`).
enum TransferBaseline: String {
    /// `upload(for:fromFile:)` on a plain session; downloads by a data-task delegate writing each chunk
    /// to a `FileHandle`, no `fsync`. The goals are measured against this one.
    case plain
    /// Diagnostic: uploads as delegate-driven upload tasks on a session with a delegate; downloads end
    /// with `fsync`, as `download(to:)` does.
    case delegate
    /// Diagnostic: downloads as `downloadTask(with:)` on a session with a delegate (Foundation writes the
    /// file itself), moved to the destination when done; uploads as `plain`.
    case downloadtask
    /// Diagnostic: as `plain`, but the multipart upload first writes its multipart file inside the
    /// timed call, as a raw URLSession caller on Linux must to send it with its exact length.
    case spooled
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("netlayer-bench: \(message)\n".utf8))
    exit(2)
}
