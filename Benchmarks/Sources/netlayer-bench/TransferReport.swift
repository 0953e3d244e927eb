import Foundation

/// The transfer tables (issue 6) and their `RESULT` fields. MB = 10^6 bytes.
extension Report {
    static let memoryGoalMB = 32.0
    static let transferRatioGoal = 0.9

    static func megabytes(_ bytes: Int64) -> String { fixed(Double(bytes) / 1e6, 1) }

    /// - Parameter labels: The clients' names. Default URLSession and NetLayer.
    static func memory(_ results: [MemoryBenchmark.Result], bytes: Int64, labels: Labels = .urlSession) {
        print("")
        print("== Peak RSS of one transfer of \(bytes) bytes, each in a fresh process (VmHWM) ==")
        let reset = results.allSatisfy { $0.resetLevel != nil }
        print(
            reset
                ? "   baseline = RSS after one empty request, where the peak was reset (clear_refs); "
                    + "growth = peak - baseline"
                : "   the peak could not be reset: growth = peak - peak after one empty request")
        let widths = [10, max(11, labels.baseline.count, labels.contender.count), 12, 10, 11, 8, 8, 8]
        print(
            row(
                ["transfer", "client", "baseline MB", "peak MB", "growth MB", "s", "MB/s", "goal"],
                widths: widths))
        for result in results {
            print(
                row(
                    [
                        result.kind.rawValue, labels.name(result.client),
                        megabytes(result.resetLevel ?? result.baselinePeak), megabytes(result.peak),
                        megabytes(result.growth), fixed(result.seconds, 2),
                        fixed(result.megabytesPerSecond, 0),
                        result.client == .netLayer
                            ? verdict(Double(result.growth) / 1e6 <= memoryGoalMB) : "",
                    ], widths: widths))
        }
        print(
            "goal: \(labels.contender) growth ≤ \(fixed(memoryGoalMB, 0)) MB over its baseline, for every transfer"
        )
    }

    /// - Parameters:
    ///   - labels: The clients' names. Default URLSession and NetLayer.
    ///   - cpuNote: The line that explains the CPU columns. Default the transfer part's.
    static func transfers(
        _ outputs: [TransferBenchmark.Output], bytes: Int64, labels: Labels = .urlSession,
        cpuNote: String? = nil
    ) {
        print("")
        print(
            "== Transfer throughput, \(bytes) bytes each, \(labels.contender) and \(labels.baseline) in ABBA pairs =="
        )
        print(
            cpuNote
                ?? "   CPU s/GB: process = getrusage (client + in-process server); client = process - server's NIO threads"
        )
        let clientWidth = max(11, labels.baseline.count, labels.contender.count)
        let widths = [10, 5, clientWidth, 8, max(13, labels.ratio.count), 15, 17]
        print(
            row(
                ["transfer", "pair", "client", "MB/s", labels.ratio, "CPU s/GB proc", "CPU s/GB client"],
                widths: widths))
        for output in outputs {
            let ratios = output.pairRatios
            for (index, run) in output.runs.enumerated() {
                print(
                    row(
                        [
                            output.kind.rawValue, "\(run.pair + 1)", labels.name(run.client),
                            fixed(run.megabytesPerSecond, 0),
                            index % 2 == 1 && run.pair < ratios.count ? fixed(ratios[run.pair], 3) : "",
                            fixed(run.processCPUPerGB, 2), fixed(run.clientCPUPerGB, 2),
                        ], widths: widths))
            }
        }
        print("")
        let summaryWidths = [
            10, max(15, labels.baseline.count + 5), max(15, labels.contender.count + 5), 16, 11, 11, 8,
        ]
        print(
            row(
                [
                    "transfer", "\(labels.baseline) MB/s", "\(labels.contender) MB/s", "ratio (min-max)",
                    "CPU s/GB U", "CPU s/GB N", "goal",
                ],
                widths: summaryWidths))
        for output in outputs {
            let pairs = Summary(output.pairRatios)
            print(
                row(
                    [
                        output.kind.rawValue, fixed(output.medianRate(.urlSession), 0),
                        fixed(output.medianRate(.netLayer), 0),
                        "\(fixed(output.ratio, 3)) (\(fixed(pairs.min, 2))-\(fixed(pairs.max, 2)))",
                        fixed(output.medianClientCPU(.urlSession), 2),
                        fixed(output.medianClientCPU(.netLayer), 2),
                        verdict(output.ratio >= transferRatioGoal),
                    ], widths: summaryWidths))
        }
        print(
            "ratio = median over pairs of \(labels.contender) MB/s ÷ \(labels.baseline) MB/s; "
                + "goal ≥ \(fixed(transferRatioGoal, 2)); "
                + "CPU s/GB = client CPU per GB (U = \(labels.baseline), N = \(labels.contender))")
    }

    static func transferFields(memory: [MemoryBenchmark.Result], throughput: [TransferBenchmark.Output])
        -> [(String, String)]
    {
        var fields: [(String, String)] = []
        for result in memory {
            let key = "mem_\(result.kind.rawValue)_\(result.client.rawValue.lowercased())"
            fields += [
                ("\(key)_growth_mb", megabytes(result.growth)), ("\(key)_peak_mb", megabytes(result.peak)),
            ]
        }
        for output in throughput {
            let key = "xfer_\(output.kind.rawValue)"
            fields += [
                ("\(key)_ratio", fixed(output.ratio, 3)),
                ("\(key)_urlsession_mbps", fixed(output.medianRate(.urlSession), 0)),
                ("\(key)_netlayer_mbps", fixed(output.medianRate(.netLayer), 0)),
            ]
        }
        return fields
    }
}
