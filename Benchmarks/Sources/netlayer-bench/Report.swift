import Foundation

/// Prints the tables and the closing machine-readable line.
enum Report {
    static let prepGoalMicros = 5.0
    static let ratioGoal = 0.97

    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// A row of left-aligned first column and right-aligned others.
    static func row(_ cells: [String], widths: [Int]) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            let (cell, width) = pair
            let padding = String(repeating: " ", count: max(0, width - cell.count))
            return index == 0 ? cell + padding : padding + cell
        }.joined(separator: "  ")
    }

    static func verdict(_ ok: Bool) -> String { ok ? "MET" : "NOT MET" }

    /// What a table calls its two clients: the baseline (``ThroughputBenchmark/Client/urlSession``'s
    /// slot) and the contender (``ThroughputBenchmark/Client/netLayer``'s slot).
    struct Labels {
        let baseline: String
        let contender: String

        static let urlSession = Labels(baseline: "URLSession", contender: "NetLayer")

        func name(_ client: ThroughputBenchmark.Client) -> String {
            client == .urlSession ? baseline : contender
        }

        /// The ratio's name; the default tables keep their short column title.
        var ratio: String {
            baseline == "URLSession" && contender == "NetLayer" ? "NetLayer/URLS" : "\(contender)/\(baseline)"
        }
    }

    static func preparation(_ output: PreparationBenchmark.Output, config: Config) {
        print("")
        print("== Request preparation: 20 params, 7 headers, 2 path parts, GET (no sending) ==")
        print(
            "   \(config.prepRounds) rounds x \(config.prepIterations) timed calls per case, cases interleaved; "
                + "times in µs per call")
        let widths = [42, 9, 9, 15, 15]
        print(row(["case", "median", "p90", "round means min", "round means max"], widths: widths))
        for result in output.results {
            print(
                row(
                    [
                        result.name, fixed(result.calls.median, 2), fixed(result.calls.p90, 2),
                        fixed(result.rounds.min, 2), fixed(result.rounds.max, 2),
                    ], widths: widths))
        }
        for (id, name) in [("netlayer", "executor.urlRequest"), ("transport", "executor.transportRequest")] {
            guard let result = output.result(id) else { continue }
            print(
                "goal: \(name) median ≤ \(fixed(prepGoalMicros, 0)) µs → \(fixed(result.calls.median, 2)) µs: "
                    + verdict(result.calls.median <= prepGoalMicros))
        }
        if let transport = output.result("transport"), let floor = output.result("floor") {
            print(
                "transportRequest (no URLRequest) vs Foundation floor (URL(string:) + URLRequest + 7 setValue): "
                    + "\(fixed(transport.calls.median, 2)) vs \(fixed(floor.calls.median, 2)) µs")
        }
        if let miss = output.result("transport-miss") {
            print(
                "with a URL never seen before (the resource's URL cache misses; makeExecutor included): "
                    + "\(fixed(miss.calls.median, 2)) µs")
        }
        print("timer read per sample: \(fixed(output.timerOverheadMicros, 3)) µs (included above)")
        print("NetLayer URL: \(output.netLayerURL)")
        print("by-hand URL:  \(output.handURL)")
    }

    /// - Parameters:
    ///   - labels: The clients' names. Default URLSession and NetLayer.
    ///   - goal: The ratio the median of pair ratios must reach; `nil`: none. Default ``ratioGoal``.
    ///   - title: The table's title, after "==". Default the GET+decode title.
    ///   - cpuNote: The line that explains the CPU columns. Default the throughput part's.
    static func throughput(
        _ output: ThroughputBenchmark.Output, bodyBytes: Int, labels: Labels = .urlSession,
        goal: Double? = ratioGoal, title: String? = nil, cpuNote: String? = nil
    ) {
        print("")
        print(
            "== \(title ?? "GET /books + decode [Book] (\(bodyBytes)-byte JSON body)"), \(output.mode.title) =="
        )
        print(
            cpuNote
                ?? "   CPU µs/req: process = getrusage (client + in-process server); client = process - server's NIO threads"
        )
        let clientWidth = max(11, labels.baseline.count, labels.contender.count)
        let widths = [5, clientWidth, 10, max(13, labels.ratio.count), 16, 16]
        print(
            row(
                ["pair", "client", "req/s", labels.ratio, "CPU µs/req proc", "CPU µs/req client"],
                widths: widths))
        let ratios = output.pairRatios
        for round in output.rounds {
            let isSecondOfPair = output.rounds.last(where: { $0.pair == round.pair })?.client == round.client
            print(
                row(
                    [
                        "\(round.pair + 1)", labels.name(round.client), fixed(round.requestsPerSecond, 0),
                        isSecondOfPair && round.pair < ratios.count ? fixed(ratios[round.pair], 3) : "",
                        fixed(round.cpuTotalMicros, 0), fixed(round.cpuClientMicros, 0),
                    ], widths: widths))
        }
        for client in ThroughputBenchmark.Client.allCases {
            print(
                row(
                    [
                        "med", labels.name(client), fixed(output.medianRate(client), 0), "",
                        fixed(output.medianCPUTotal(client), 0), fixed(output.medianCPUClient(client), 0),
                    ], widths: widths))
        }
        let pairSummary = Summary(ratios)
        print(
            "ratio \(labels.contender)/\(labels.baseline): median of pair ratios \(fixed(output.ratio, 3)) "
                + "(pairs min \(fixed(pairSummary.min, 3)), max \(fixed(pairSummary.max, 3)); "
                + "ratio of medians \(fixed(output.ratioOfMedians, 3)))"
                + (goal.map { "; goal ≥ \(fixed($0, 2)): " + verdict(output.ratio >= $0) } ?? "; no goal"))
        let extraCPU = output.medianCPUClient(.netLayer) - output.medianCPUClient(.urlSession)
        print(
            "\(labels.contender) client CPU per request vs \(labels.baseline): "
                + "\(extraCPU >= 0 ? "+" : "")\(fixed(extraCPU, 1)) µs")
    }

    /// `RESULT key=value …` on one line, for scripts.
    static func resultLine(
        prep: PreparationBenchmark.Output?, sequential: ThroughputBenchmark.Output?,
        concurrent: ThroughputBenchmark.Output?, concurrency: Int, extra: [(String, String)] = []
    ) -> String {
        var fields: [(String, String)] = []
        if let prep {
            for (id, key) in [
                ("netlayer", "prep"), ("transport", "prep_transport"), ("make", "prep_make"),
                ("hand", "hand"), ("floor", "floor"), ("floor-dict", "floor_dict"), ("simple", "simple"),
                ("transport-miss", "prep_transport_new_url"),
            ] {
                guard let result = prep.result(id) else { continue }
                fields.append(("\(key)_median_us", fixed(result.calls.median, 2)))
                if id == "netlayer" { fields.append(("prep_p90_us", fixed(result.calls.p90, 2))) }
            }
        }
        for (key, output) in [("seq", sequential), ("conc\(concurrency)", concurrent)] {
            guard let output else { continue }
            fields += [
                ("\(key)_ratio", fixed(output.ratio, 3)),
                ("\(key)_urlsession_rps", fixed(output.medianRate(.urlSession), 0)),
                ("\(key)_netlayer_rps", fixed(output.medianRate(.netLayer), 0)),
                ("\(key)_urlsession_cpu_us", fixed(output.medianCPUClient(.urlSession), 0)),
                ("\(key)_netlayer_cpu_us", fixed(output.medianCPUClient(.netLayer), 0)),
            ]
        }
        fields += extra
        return "RESULT " + fields.map { "\($0)=\($1)" }.joined(separator: " ")
    }
}
