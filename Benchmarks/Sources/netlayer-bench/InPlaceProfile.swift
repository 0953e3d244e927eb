import Foundation

/// Diagnostic (`BENCH_PROFILE_CLIENT=canned-inplace`): NetLayer's own work per call as the throughput
/// benchmark meets it, from cold caches.
///
/// Hot, one canned call after another, NetLayer adds 1.5–3 µs over the decode (see `canned`); in
/// the throughput benchmark the same code costs several times that, because between two calls
/// URLSession, libcurl, the kernel and the server evict it from the caches. Here each timed call
/// follows a real URLSession GET+decode to the bench server, and the two timed things alternate:
/// the canned NetLayer call (``CannedClient/books()``) and the decode alone on the same bytes. The
/// difference of their medians is what NetLayer's path costs in place.
enum InPlaceProfile {
    static func run(port: Int, rounds: Int) async throws {
        let evictor = URLSessionClient(port: port)
        let canned = try CannedClient()
        var call: [Double] = []
        var decode: [Double] = []
        call.reserveCapacity(rounds)
        decode.reserveCapacity(rounds)
        for round in 0..<rounds {
            // ABBA within each pair of rounds, so neither side always runs right after the other.
            let callFirst = round % 2 == 0
            for callTurn in callFirst ? [true, false] : [false, true] {
                _ = try await evictor.books()
                let start = monotonicNanos()
                let books = callTurn ? try await canned.books() : try await canned.decodeOnly()
                let micros = Double(monotonicNanos() - start) / 1e3
                guard books.count == BenchServer.books.count else {
                    throw BenchError("the canned client decoded \(books.count) books")
                }
                if callTurn { call.append(micros) } else { decode.append(micros) }
            }
        }
        let callMedian = median(call)
        let decodeMedian = median(decode)
        print(
            "profile canned-inplace, \(rounds) rounds, each after a URLSession GET+decode: NetLayer call "
                + "\(Report.fixed(callMedian, 1)) µs, decode alone \(Report.fixed(decodeMedian, 1)) µs (medians); "
                + "NetLayer adds \(Report.fixed(callMedian - decodeMedian, 1)) µs in place")
    }
}
