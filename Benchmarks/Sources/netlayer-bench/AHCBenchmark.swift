import Foundation
import NetLayer
import NetLayerAsyncHTTPClient

/// The AsyncHTTPClient part (issue 27): NetLayer over its `AsyncHTTPClientTransport` against raw
/// AsyncHTTPClient, on the same in-process server, with the existing parts' methods.
///
/// - GET+decode (``ThroughputBenchmark``: interleaved ABBA slices, median of pair ratios): raw AHC
///   against NetLayer over AHC, sequential and at each of `BENCH_AHC_CONCURRENCY`; raw AHC against
///   NetLayer over AHC with an idle timeout (the transport's timed path: a driver task and a
///   watchdog per call); NetLayer over URLSession against NetLayer over AHC at `BENCH_CONCURRENCY`.
/// - Transfers (``MemoryBenchmark`` in child processes, ``TransferBenchmark`` in ABBA pairs): the
///   `BENCH_TRANSFER_*` kinds, raw AHC streaming the same bytes against NetLayer over AHC.
///
/// Both AHC clients of a comparison have their own `HTTPClient` on `HTTPClient.defaultEventLoopGroup`
/// with the same settings and `BENCH_AHC_CONNECTIONS` connections per host.
enum AHCBenchmark {
    /// NetLayer over AHC ÷ raw AHC, GET+decode and transfer MB/s.
    static let ratioGoal = 0.9
    /// NetLayer over AHC ÷ NetLayer over URLSession, GET+decode at `BENCH_CONCURRENCY` tasks.
    static let urlSessionGoal = 5.0
    /// The idle timeout of the timed-path comparison.
    static let idleTimeout: Duration = .seconds(30)

    static let rawLabels = Report.Labels(baseline: "raw AHC", contender: "NetLayer/AHC")
    static let timedLabels = Report.Labels(baseline: "raw AHC", contender: "NetLayer/AHC+timeout")
    static let urlSessionLabels = Report.Labels(baseline: "NetLayer/URLSession", contender: "NetLayer/AHC")

    /// The event loops of both AHC clients are the server's (`HTTPClient.defaultEventLoopGroup` and
    /// Hummingbird's default are NIO's shared singleton group), so the `client` column, which takes
    /// the NIO threads out, leaves AsyncHTTPClient's own socket work out too.
    static let cpuNote =
        "   CPU µs/req: process = getrusage (client + in-process server; compare this one); client = process - "
        + "NIO threads, which here also run AsyncHTTPClient's event loops (shared with the server)"
    static let transferCPUNote =
        "   CPU s/GB: process = getrusage (client + in-process server); client = process - NIO threads, which "
        + "here also run AsyncHTTPClient's event loops (shared with the server)"

    /// One GET+decode comparison for the summary.
    struct Comparison {
        let key: String
        let labels: Report.Labels
        let connections: Int
        let output: ThroughputBenchmark.Output
        /// `nil`: reported, no goal.
        let goal: Double?
    }

    /// Runs the part against `server`; returns its `RESULT` fields (all prefixed `ahc_`).
    static func run(_ config: Config, server: BenchServer.Running, progress: @escaping (String) -> Void)
        async throws -> [(String, String)]
    {
        print("")
        print(
            "==== AsyncHTTPClient part: NetLayer over AsyncHTTPClientTransport against raw AsyncHTTPClient ===="
        )
        print(
            "server: Hummingbird on 127.0.0.1:\(server.port); both AHC clients: own HTTPClient on "
                + "HTTPClient.defaultEventLoopGroup, redirects disallowed, decompression .enabled(limit: .ratio(100)), "
                + "connect 10 s, read 60 s, pool idle 60 s, no connection retries, "
                + "\(config.ahcConnections.map(String.init).joined(separator: " then ")) connections per host"
        )
        var comparisons: [Comparison] = []
        let parts = config.ahcParts
        if !parts.isDisjoint(with: [.throughput, .timeout, .urlsession]) {
            for (index, connections) in config.ahcConnections.enumerated() {
                comparisons += try await throughput(
                    config, port: server.port, bodyBytes: server.bodyBytes, connections: connections,
                    headline: index == 0, progress: progress)
            }
            summary(comparisons)
        }
        var fields = comparisons.flatMap(resultFields)
        if parts.contains(.transfers) {
            fflush(nil)
            fields += try await transfers(
                config, port: server.port, connections: config.ahcConnections[0], progress: progress)
        }
        return fields
    }

    /// The GET+decode comparisons at one pool size. The headline size also runs sequentially and
    /// against NetLayer over URLSession; other sizes run the concurrent comparisons only.
    private static func throughput(
        _ config: Config, port: Int, bodyBytes: Int, connections: Int, headline: Bool,
        progress: @escaping (String) -> Void
    ) async throws -> [Comparison] {
        let raw = RawAHCClient(port: port, connections: connections)
        let transport = AsyncHTTPClientTransport(
            configuration: .init { $0.maximumConnectionsPerHost = connections })
        let netLayer = NetLayerClient(port: port, transport: transport)
        let timed = NetLayerClient(
            port: port, transport: transport, options: ResourceOptions { $0.timeout = idleTimeout })
        let rawFetch: ThroughputBenchmark.Fetch = { try await raw.books() }
        let netLayerFetch: ThroughputBenchmark.Fetch = { try await netLayer.books() }

        var modes: [ThroughputBenchmark.Mode] =
            headline ? [.sequential(requests: config.sequentialRequests)] : []
        modes += config.ahcConcurrencies.map { .concurrent(requests: requests(config, tasks: $0), tasks: $0) }
        var comparisons: [Comparison] = []
        func compare(
            _ key: String, _ mode: ThroughputBenchmark.Mode, labels: Report.Labels, goal: Double?,
            baseline: @escaping ThroughputBenchmark.Fetch, contender: @escaping ThroughputBenchmark.Fetch
        ) async throws {
            progress("ahc \(key), \(connections) connections per host: \(mode.title)")
            let output = try await ThroughputBenchmark.run(
                mode, pairs: config.rounds, slices: config.slices,
                clients: [.urlSession: baseline, .netLayer: contender], expected: BenchServer.books,
                progress: progress)
            Report.throughput(
                output, bodyBytes: bodyBytes, labels: labels, goal: goal,
                title:
                    "AHC, \(connections) connections per host: GET /books + decode [Book] (\(bodyBytes)-byte JSON)",
                cpuNote: cpuNote)
            fflush(nil)
            comparisons.append(
                Comparison(key: key, labels: labels, connections: connections, output: output, goal: goal))
        }
        for mode in modes {
            if config.ahcParts.contains(.throughput) {
                try await compare(
                    "raw", mode, labels: rawLabels, goal: ratioGoal, baseline: rawFetch,
                    contender: netLayerFetch)
            }
            if config.ahcParts.contains(.timeout) {
                try await compare(
                    "timeout", mode, labels: timedLabels, goal: nil, baseline: rawFetch,
                    contender: { try await timed.books() })
            }
        }
        if headline, config.ahcParts.contains(.urlsession) {
            let overURLSession = NetLayerClient(port: port)
            try await compare(
                "urlsession",
                .concurrent(requests: config.concurrentRequests, tasks: config.concurrency),
                labels: urlSessionLabels, goal: urlSessionGoal,
                baseline: { try await overURLSession.books() },
                contender: netLayerFetch)
        }
        try await raw.shutdown()
        try await transport.shutdown()
        return comparisons
    }

    /// Requests per round with `tasks` concurrent tasks: `BENCH_CONC_REQUESTS`, but at least 8 per
    /// task in every slice, so that every slice runs `tasks` requests at once (256 tasks would
    /// otherwise share 80 requests in a full run's slice).
    static func requests(_ config: Config, tasks: Int) -> Int {
        max(config.concurrentRequests, tasks * config.slices * 8)
    }

    private static func modeKey(_ mode: ThroughputBenchmark.Mode) -> String {
        switch mode {
        case .sequential: "seq"
        case .concurrent(_, let tasks): "conc\(tasks)"
        }
    }

    private static func modeName(_ mode: ThroughputBenchmark.Mode) -> String {
        switch mode {
        case .sequential: "sequential"
        case .concurrent(_, let tasks): "\(tasks) concurrent"
        }
    }

    /// One line per comparison: the medians, the ratio with its pairs' spread, the goal, and the
    /// process CPU per request of both clients.
    private static func summary(_ comparisons: [Comparison]) {
        guard !comparisons.isEmpty else { return }
        print("")
        print("== AHC part, GET+decode summary: ratio = median of pair ratios (contender/baseline) ==")
        let widths = [43, 14, 6, 10, 10, 22, 7, 8, 17]
        print(
            Report.row(
                [
                    "contender / baseline", "mode", "conns", "base r/s", "cont r/s", "ratio (pairs min-max)",
                    "goal",
                    "verdict", "proc µs/req B/C",
                ], widths: widths))
        for comparison in comparisons {
            let output = comparison.output
            let pairs = Summary(output.pairRatios)
            print(
                Report.row(
                    [
                        "\(comparison.labels.contender) / \(comparison.labels.baseline)",
                        modeName(output.mode),
                        "\(comparison.connections)", Report.fixed(output.medianRate(.urlSession), 0),
                        Report.fixed(output.medianRate(.netLayer), 0),
                        "\(Report.fixed(output.ratio, 3)) (\(Report.fixed(pairs.min, 2))-\(Report.fixed(pairs.max, 2)))",
                        comparison.goal.map { "≥ \(Report.fixed($0, $0 < 1 ? 2 : 0))" } ?? "-",
                        comparison.goal.map { Report.verdict(output.ratio >= $0) } ?? "-",
                        "\(Report.fixed(output.medianCPUTotal(.urlSession), 0)) / "
                            + Report.fixed(output.medianCPUTotal(.netLayer), 0),
                    ], widths: widths))
        }
        // The timed path's price: its ratio and CPU against the untimed path's, same mode and pool.
        for timed in comparisons where timed.key == "timeout" {
            guard
                let plain = comparisons.first(where: {
                    $0.key == "raw" && $0.connections == timed.connections
                        && modeKey($0.output.mode) == modeKey(timed.output.mode)
                })
            else { continue }
            let plainCPU = plain.output.medianCPUTotal(.netLayer) - plain.output.medianCPUTotal(.urlSession)
            let timedCPU = timed.output.medianCPUTotal(.netLayer) - timed.output.medianCPUTotal(.urlSession)
            print(
                "timeout \(idleTimeout) (driver task + watchdog), \(modeName(timed.output.mode)), "
                    + "\(timed.connections) conns: ratio to raw AHC \(Report.fixed(timed.output.ratio, 3)) against "
                    + "\(Report.fixed(plain.output.ratio, 3)) without; process CPU over raw AHC "
                    + "\(signed(timedCPU)) µs/req against \(signed(plainCPU)) without")
        }
    }

    private static func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + Report.fixed(value, 1) }

    private static func resultFields(_ comparison: Comparison) -> [(String, String)] {
        let output = comparison.output
        let pool = comparison.connections == 8 ? "" : "_c\(comparison.connections)"
        let key = "ahc_\(comparison.key)_\(modeKey(output.mode))\(pool)"
        return [
            ("\(key)_ratio", Report.fixed(output.ratio, 3)),
            ("\(key)_baseline_rps", Report.fixed(output.medianRate(.urlSession), 0)),
            ("\(key)_contender_rps", Report.fixed(output.medianRate(.netLayer), 0)),
            ("\(key)_baseline_proc_cpu_us", Report.fixed(output.medianCPUTotal(.urlSession), 0)),
            ("\(key)_contender_proc_cpu_us", Report.fixed(output.medianCPUTotal(.netLayer), 0)),
        ]
    }

    /// The transfers over AsyncHTTPClient: files as the transfer part makes them, peak RSS in child
    /// processes, then throughput in ABBA pairs; the files are removed at the end.
    private static func transfers(
        _ config: Config, port: Int, connections: Int, progress: @escaping (String) -> Void
    ) async throws -> [(String, String)] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-bench-ahc-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = AsyncHTTPClientTransport(
            configuration: .init { $0.maximumConnectionsPerHost = connections })
        let netLayer = NetLayerTransferClient(port: port, transport: transport)
        let raw = RawAHCTransferClient(port: port, connections: connections)
        progress("ahc transfers: writing \(config.transferBytes)-byte files to \(directory.path)")
        let files = try TransferFiles.make(
            bytes: config.transferBytes, in: directory, multipartBody: netLayer.multipartBody)
        let warmUp = try TransferFiles.make(
            bytes: min(config.transferBytes, 4 << 20), in: directory, multipartBody: netLayer.multipartBody)
        print("")
        print(
            "AHC transfers: source \(files.bytes) bytes, multipart body \(files.multipartLength) bytes; "
                + "raw AHC: HTTPClientRequest.Body.stream of 256 KiB reads with .known(length) (multipart: "
                + "the same body built once on disk), download: response.body written to a FileHandle "
                + "(no fsync); NetLayer/AHC: the transfer part's calls (multipart streamed, download(to:))")
        fflush(nil)

        var memory: [MemoryBenchmark.Result] = []
        if config.transferMemory {
            memory = try await MemoryBenchmark.run(
                kinds: config.transferKinds, port: port, files: files, baseline: .plain,
                stack: .asyncHTTPClient,
                connections: connections, progress: progress)
            Report.memory(memory, bytes: files.bytes, labels: rawLabels)
            fflush(nil)
        }

        var throughput: [TransferBenchmark.Output] = []
        if config.transferThroughput {
            let clients: [ThroughputBenchmark.Client: TransferBenchmark.Transfer] = [
                .urlSession: { kind, files, destination in
                    try await raw.transfer(kind, files: files, destination: destination)
                },
                .netLayer: { kind, files, destination in
                    try await netLayer.transfer(kind, files: files, destination: destination)
                },
            ]
            for kind in config.transferKinds {
                throughput.append(
                    try await TransferBenchmark.run(
                        kind: kind, pairs: config.transferRounds, files: files, warmUp: warmUp,
                        clients: clients,
                        progress: progress))
            }
            Report.transfers(throughput, bytes: files.bytes, labels: rawLabels, cpuNote: transferCPUNote)
        }
        try await raw.shutdown()
        try await transport.shutdown()

        var fields: [(String, String)] = []
        for result in memory {
            let key = "ahc_mem_\(result.kind.rawValue)_\(result.client == .netLayer ? "netlayer" : "raw")"
            fields += [
                ("\(key)_growth_mb", Report.megabytes(result.growth)),
                ("\(key)_peak_mb", Report.megabytes(result.peak)),
            ]
        }
        for output in throughput {
            let key = "ahc_xfer_\(output.kind.rawValue)"
            fields += [
                ("\(key)_ratio", Report.fixed(output.ratio, 3)),
                ("\(key)_raw_mbps", Report.fixed(output.medianRate(.urlSession), 0)),
                ("\(key)_netlayer_mbps", Report.fixed(output.medianRate(.netLayer), 0)),
            ]
        }
        return fields
    }
}
