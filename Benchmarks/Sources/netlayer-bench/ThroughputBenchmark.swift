import Foundation

/// GET+decode throughput of raw URLSession (baseline) and NetLayer against the same server, in the
/// same process, in interleaved rounds.
///
/// Rounds come in pairs, one per client, run interleaved slice by slice (see ``run(_:pairs:slices:clients:expected:progress:)``)
/// so noise from the rest of the machine (other builds, CPU clock changes) hits both clients of a
/// pair alike. Each pair gives one ratio NetLayer/URLSession; the reported ratio is the median of
/// those pair ratios.
enum ThroughputBenchmark {
    typealias Fetch = @Sendable () async throws -> [Book]

    enum Client: String, CaseIterable {
        case urlSession = "URLSession"
        case netLayer = "NetLayer"
    }

    enum Mode {
        case sequential(requests: Int)
        case concurrent(requests: Int, tasks: Int)

        var requests: Int {
            switch self {
            case .sequential(let requests), .concurrent(let requests, _): requests
            }
        }

        var title: String {
            switch self {
            case .sequential(let requests): "sequential, \(requests) requests per round"
            case .concurrent(let requests, let tasks):
                "\(tasks) concurrent tasks, \(requests) requests per round"
            }
        }
    }

    struct Round {
        let pair: Int
        let client: Client
        let requests: Int
        let seconds: Double
        let cpu: CPUSnapshot

        var requestsPerSecond: Double { Double(requests) / seconds }
        /// Process CPU per request in µs (client + in-process server).
        var cpuTotalMicros: Double { cpu.total / Double(requests) * 1e6 }
        /// Client-side CPU per request in µs (process minus the server's NIO threads).
        var cpuClientMicros: Double { cpu.client / Double(requests) * 1e6 }
    }

    struct Output {
        let mode: Mode
        let rounds: [Round]

        func rounds(of client: Client) -> [Round] { rounds.filter { $0.client == client } }

        func medianRate(_ client: Client) -> Double { median(rounds(of: client).map(\.requestsPerSecond)) }
        func medianCPUTotal(_ client: Client) -> Double { median(rounds(of: client).map(\.cpuTotalMicros)) }
        func medianCPUClient(_ client: Client) -> Double { median(rounds(of: client).map(\.cpuClientMicros)) }

        /// NetLayer/URLSession requests/s of each pair of adjacent rounds.
        var pairRatios: [Double] {
            Dictionary(grouping: rounds, by: \.pair).keys.sorted().compactMap { pair in
                let both = rounds.filter { $0.pair == pair }
                guard let base = both.first(where: { $0.client == .urlSession }),
                    let net = both.first(where: { $0.client == .netLayer })
                else { return nil }
                return net.requestsPerSecond / base.requestsPerSecond
            }
        }

        /// The median of the pair ratios: the number to hold against the ≥ 0.97 goal.
        var ratio: Double { median(pairRatios) }
        /// The ratio of the two medians, for comparison.
        var ratioOfMedians: Double { medianRate(.netLayer) / medianRate(.urlSession) }
    }

    /// Runs `pairs` pairs of rounds of `mode` after a warm-up of both clients.
    ///
    /// Each round is cut into `slices` equal slices, and the two rounds of a pair are run slice by
    /// slice in ABBA order (URLSession, NetLayer, NetLayer, URLSession, …), so both clients of a pair
    /// see the same machine within a fraction of a second of each other. A round's time and CPU are
    /// the sums over its slices. `slices: 1` gives plain alternating whole rounds.
    static func run(
        _ mode: Mode, pairs: Int, slices: Int, clients: [Client: Fetch], expected: [Book],
        progress: (String) -> Void
    ) async throws -> Output {
        let warmUp: Mode =
            switch mode {
            case .sequential(let requests): .sequential(requests: max(50, requests / 10))
            case .concurrent(let requests, let tasks):
                .concurrent(requests: max(tasks * 4, requests / 10), tasks: tasks)
            }
        for client in Client.allCases {
            _ = try await measure(warmUp, fetch: clients[client]!, expected: expected)
        }

        let slices = max(1, min(slices, mode.requests))
        var rounds: [Round] = []
        for pair in 0..<pairs {
            let first: [Client] = pair % 2 == 0 ? [.urlSession, .netLayer] : [.netLayer, .urlSession]
            var seconds: [Client: Double] = [:]
            var cpu: [Client: CPUSnapshot] = [:]
            for slice in 0..<slices {
                let share = mode.requests / slices + (slice < mode.requests % slices ? 1 : 0)
                let sliceMode: Mode =
                    switch mode {
                    case .sequential: .sequential(requests: share)
                    case .concurrent(_, let tasks): .concurrent(requests: share, tasks: tasks)
                    }
                for client in slice % 2 == 0 ? first : first.reversed() {
                    let (time, used) = try await measure(
                        sliceMode, fetch: clients[client]!, expected: expected)
                    seconds[client, default: 0] += time
                    cpu[client] = (cpu[client] ?? CPUSnapshot(total: 0, server: 0)) + used
                }
            }
            for client in first {
                let round = Round(
                    pair: pair, client: client, requests: mode.requests, seconds: seconds[client]!,
                    cpu: cpu[client]!)
                rounds.append(round)
                progress(
                    "  pair \(pair + 1)/\(pairs) \(client.rawValue): \(Int(round.requestsPerSecond.rounded())) req/s"
                )
            }
        }
        return Output(mode: mode, rounds: rounds)
    }

    /// One round: wall time and CPU time of `mode.requests` requests.
    static func measure(_ mode: Mode, fetch: @escaping Fetch, expected: [Book]) async throws -> (
        Double, CPUSnapshot
    ) {
        let cpuStart = CPUSnapshot.now()
        let start = monotonicNanos()
        switch mode {
        case .sequential(let requests):
            try await loop(requests, fetch: fetch, expected: expected)
        case .concurrent(let requests, let tasks):
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    let share = requests / tasks + (task < requests % tasks ? 1 : 0)
                    group.addTask { try await loop(share, fetch: fetch, expected: expected) }
                }
                try await group.waitForAll()
            }
        }
        let seconds = Double(monotonicNanos() - start) / 1e9
        return (seconds, CPUSnapshot.now() - cpuStart)
    }

    private static func loop(_ count: Int, fetch: Fetch, expected: [Book]) async throws {
        for index in 0..<count {
            let books = try await fetch()
            // Check every answer cheaply and the first one fully.
            if books.count != expected.count || (index == 0 && books != expected) {
                throw BenchError("a client decoded \(books.count) books, not the \(expected.count) served")
            }
        }
    }
}
