import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A diagnostic (`--latency-only`, `BENCH_ONLY=latency`): where a sequential GET+decode spends its
/// time, layer by layer. Each client makes the same `GET /books` and decodes `[Book]`, one request at
/// a time, in blocks of 25 that rotate through the clients, so the machine's noise hits them alike.
/// Reports quartiles of the per-request time, and each client's median minus raw URLSession's.
///
/// The layers: raw URLSession on a plain session; raw URLSession on a session with a
/// redirect-refusing delegate (what NetLayer's session needs); `URLSessionTransport.send` called
/// directly; the executor returning the raw body (decoded outside); the whole NetLayer call.
enum LatencyBenchmark {
    /// Runs `blocks` rotations and prints the table.
    static func run(port: Int, blocks: Int, progress: (String) -> Void) async throws {
        let baseline = URLSessionClient(port: port, configuration: URLSessionTransport.defaultConfiguration)
        let delegated = URLSessionDelegateClient(
            port: port, queue: .serial, configuration: URLSessionTransport.defaultConfiguration)
        let transport = TransportClient(port: port)
        let netLayer = NetLayerClient(port: port)
        let decoder = JSONDecoder()
        let clients: [(name: String, fetch: ThroughputBenchmark.Fetch)] = [
            ("URLSession", { try await baseline.books() }),
            ("URLSession+delegate", { try await delegated.books() }),
            ("transport.send", { try await transport.books() }),
            (
                "executor (Data)",
                {
                    let data = try await netLayer.target.makeExecutor(method: .get).execute()
                    return try decoder.decode([Book].self, from: data)
                }
            ),
            ("NetLayer", { try await netLayer.books() }),
        ]
        let perBlock = 25
        let micros = try await timeInBlocks(clients, blocks: blocks, label: "latency", progress: progress)
        print("")
        print(
            "== Sequential GET+decode latency by layer (DIAGNOSTIC), \(blocks * perBlock) requests per client "
                + "in rotating blocks of \(perBlock) ==")
        print(
            "client".padding(toLength: 22, withPad: " ", startingAt: 0)
                + "     p25 µs     p50 µs     p75 µs    mean µs   p50 - URLSession")
        let baselineMedian = quantile(micros[0].sorted(), 0.5)
        for (index, client) in clients.enumerated() {
            let sorted = micros[index].sorted()
            let mean = sorted.reduce(0, +) / Double(sorted.count)
            let median = quantile(sorted, 0.5)
            let columns = [quantile(sorted, 0.25), median, quantile(sorted, 0.75), mean].map {
                Report.fixed($0, 1).leftPadded(to: 11)
            }
            let delta =
                index == 0
                ? "" : (median - baselineMedian >= 0 ? "+" : "") + Report.fixed(median - baselineMedian, 1)
            print(
                client.name.padding(toLength: 22, withPad: " ", startingAt: 0) + columns.joined()
                    + delta.leftPadded(to: 19))
        }
    }

    /// Warms every client (200 calls: connections, caches), then times `blocks` rotations of
    /// 25 sequential calls per client, the first client of each rotation moving on by one, so the
    /// machine's noise hits them alike. Returns each client's call times in µs. Also used by
    /// ``CacheBenchmark``.
    static func timeInBlocks(
        _ clients: [(name: String, fetch: ThroughputBenchmark.Fetch)], blocks: Int, label: String,
        progress: (String) -> Void
    ) async throws -> [[Double]] {
        try await timeInBlocks(clients, blocks: blocks, label: label, check: check, progress: progress)
    }

    /// ``timeInBlocks(_:blocks:label:progress:)`` for calls answering any `Value`, each checked by
    /// `check`.
    static func timeInBlocks<Value>(
        _ clients: [(name: String, fetch: @Sendable () async throws -> Value)], blocks: Int, label: String,
        check: (Value) throws -> Void, progress: (String) -> Void
    ) async throws -> [[Double]] {
        let perBlock = 25
        for client in clients {
            for _ in 0..<200 { try check(try await client.fetch()) }
        }
        var micros = [[Double]](repeating: [], count: clients.count)
        for block in 0..<blocks {
            if block % 50 == 0 { progress("\(label): block \(block + 1)/\(blocks)") }
            for offset in clients.indices {
                let index = (offset + block) % clients.count
                for _ in 0..<perBlock {
                    let start = ContinuousClock.now
                    let answer = try await clients[index].fetch()
                    let took = ContinuousClock.now - start
                    try check(answer)
                    micros[index].append(
                        Double(took.components.seconds) * 1e6 + Double(took.components.attoseconds) / 1e12)
                }
            }
        }
        return micros
    }

    static func check(_ books: [Book]) throws {
        guard books == BenchServer.books else { throw BenchError("a client decoded the wrong books") }
    }

    private static func quantile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[Int(Double(sorted.count - 1) * fraction)]
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
