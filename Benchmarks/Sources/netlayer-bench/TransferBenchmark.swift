import Foundation

/// Transfer throughput of NetLayer against raw URLSession: the same bytes to or from the same
/// in-process server, in the same process, in ABBA order.
///
/// Per kind, after a warm-up transfer of each client, `pairs` pairs run one after the other, the
/// first URLSession then NetLayer, the next NetLayer then URLSession, and so on, so drift in the
/// machine (page cache writeback, CPU clocks) hits both alike. Each pair gives one ratio
/// NetLayer/URLSession of MB/s; the reported ratio is the median of those.
enum TransferBenchmark {
    typealias Transfer = @Sendable (TransferKind, TransferFiles, URL) async throws -> Int64

    struct Run {
        let pair: Int
        let client: ThroughputBenchmark.Client
        let bytes: Int64
        let seconds: Double
        let cpu: CPUSnapshot

        var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
        /// Client CPU (process minus the server's NIO threads) per transferred GB, in seconds.
        var clientCPUPerGB: Double { cpu.client / (Double(bytes) / 1e9) }
        /// Process CPU (client + server) per GB, in seconds.
        var processCPUPerGB: Double { cpu.total / (Double(bytes) / 1e9) }
    }

    struct Output {
        let kind: TransferKind
        let runs: [Run]

        func runs(of client: ThroughputBenchmark.Client) -> [Run] { runs.filter { $0.client == client } }
        func medianRate(_ client: ThroughputBenchmark.Client) -> Double {
            median(runs(of: client).map(\.megabytesPerSecond))
        }
        func medianClientCPU(_ client: ThroughputBenchmark.Client) -> Double {
            median(runs(of: client).map(\.clientCPUPerGB))
        }

        var pairRatios: [Double] {
            Set(runs.map(\.pair)).sorted().compactMap { pair in
                guard let base = runs.first(where: { $0.pair == pair && $0.client == .urlSession }),
                    let net = runs.first(where: { $0.pair == pair && $0.client == .netLayer })
                else { return nil }
                return net.megabytesPerSecond / base.megabytesPerSecond
            }
        }

        /// Median of the pair ratios: the number held against the ≥ 0.9 goal.
        var ratio: Double { median(pairRatios) }
    }

    /// - Parameter prefault: Diagnostic (`BENCH_TRANSFER_PREFAULT=1`): before every measured transfer,
    ///   untimed, write and delete a file this many bytes long, so that whatever new page cache the
    ///   transfer needs comes from memory freed a moment ago (see README, on the multipart ratio).
    static func run(
        kind: TransferKind, pairs: Int, files: TransferFiles, warmUp: TransferFiles,
        clients: [ThroughputBenchmark.Client: Transfer], prefault: Int64? = nil, progress: (String) -> Void
    ) async throws -> Output {
        for client in ThroughputBenchmark.Client.allCases {
            _ = try await measure(kind, files: warmUp, transfer: clients[client]!)
        }
        var runs: [Run] = []
        for pair in 0..<pairs {
            let order: [ThroughputBenchmark.Client] =
                pair % 2 == 0 ? [.urlSession, .netLayer] : [.netLayer, .urlSession]
            for client in order {
                if let prefault { try files.touchAndFreePages(prefault) }
                let (bytes, seconds, cpu) = try await measure(kind, files: files, transfer: clients[client]!)
                let run = Run(pair: pair, client: client, bytes: bytes, seconds: seconds, cpu: cpu)
                runs.append(run)
                progress(
                    "  \(kind.rawValue) pair \(pair + 1)/\(pairs) \(client.rawValue): "
                        + "\(Report.fixed(run.megabytesPerSecond, 0)) MB/s")
            }
        }
        return Output(kind: kind, runs: runs)
    }

    /// One transfer: bytes moved, wall time and CPU time. A download is checked and removed after
    /// the clock stopped.
    static func measure(_ kind: TransferKind, files: TransferFiles, transfer: Transfer) async throws -> (
        Int64, Double, CPUSnapshot
    ) {
        let destination = files.downloadDestination("throughput")
        defer { try? FileManager.default.removeItem(at: destination) }
        let cpuStart = CPUSnapshot.now()
        let start = monotonicNanos()
        let bytes = try await transfer(kind, files, destination)
        let seconds = Double(monotonicNanos() - start) / 1e9
        let cpu = CPUSnapshot.now() - cpuStart
        if kind == .download { try TransferFiles.verifyDownload(destination, bytes: files.bytes) }
        return (bytes, seconds, cpu)
    }
}
