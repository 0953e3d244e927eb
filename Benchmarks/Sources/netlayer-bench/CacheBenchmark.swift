import Foundation
import NetLayer

/// Issue 28's speed goal (`--cache-only`, `BENCH_ONLY=cache`; part of a full run): a fresh cache hit
/// against a loopback round trip for the same small JSON. Both are whole NetLayer calls (GET +
/// decode `[Book]`, about 1 KB): one to `/books` on a resource without a cache, one to
/// `/books-cached` (the same body with `Cache-Control: max-age=86400`) on a resource with an
/// ``HTTPCache`` that stored it once. They alternate in blocks of 25, sequentially; the table shows
/// the quartiles of each call's time and the ratio of medians. Goal: a hit ≤ 1/20 of the round trip.
enum CacheBenchmark {
    static func run(port: Int, blocks: Int, progress: (String) -> Void) async throws {
        let network = BenchAPI(port: port)
        let cached = BenchAPI(port: port, options: ResourceOptions { $0.cache = HTTPCache() })
        let clients: [(name: String, fetch: ThroughputBenchmark.Fetch)] = [
            ("round trip", { try await network.bookList.list() }),
            ("cache hit", { try await BooksTarget(resource: cached, path: "/books-cached").list() }),
        ]
        let stored = try await BooksTarget(resource: cached, path: "/books-cached").makeExecutor().response()
        guard stored.cacheStatus?.isStored == true else {
            throw BenchError(
                "/books-cached was not stored: \(stored.cacheStatus?.description ?? "no cache status")")
        }
        let perBlock = 25
        let micros = try await LatencyBenchmark.timeInBlocks(
            clients, blocks: blocks, label: "cache", progress: progress)
        let hit = try await BooksTarget(resource: cached, path: "/books-cached").makeExecutor().response()
        guard hit.cacheStatus?.isHit == true else { throw BenchError("the last call was not a hit") }
        print("")
        print(
            "== Cache hit vs loopback round trip (issue 28), GET+decode [Book], \(blocks * perBlock) sequential calls each =="
        )
        print("client          p25 µs    p50 µs    p75 µs")
        var medians: [Double] = []
        for (index, client) in clients.enumerated() {
            let sorted = micros[index].sorted()
            let quartile = { (q: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
            medians.append(quartile(0.5))
            print(
                client.name.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + [quartile(0.25), quartile(0.5), quartile(0.75)].map {
                        Report.fixed($0, 1).leftPadded(to: 10)
                    }.joined())
        }
        let ratio = medians[1] / medians[0]
        print(
            "ratio cache hit / round trip (medians): \(Report.fixed(ratio, 3)) (1/\(Report.fixed(1 / ratio, 0))); goal ≤ 0.05 (1/20): \(ratio <= 0.05 ? "MET" : "NOT MET")"
        )
        print(
            "RESULT cache_hit_us=\(Report.fixed(medians[1], 1)) round_trip_us=\(Report.fixed(medians[0], 1)) cache_ratio=\(Report.fixed(ratio, 4))"
        )
    }
}

extension String {
    /// Right-aligned in `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
