import Foundation
import NetLayer

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
    /// - Parameter tasks: How many tasks run rounds at once (each its own share of `rounds`); with
    ///   more than one, each timed call also finds its own task's memory cold.
    static func run(port: Int, rounds: Int, tasks: Int) async throws {
        let evictor = URLSessionClient(port: port, configuration: URLSessionTransport.defaultConfiguration)
        let canned = try CannedClient()
        let tasks = max(1, tasks)
        let samples = try await withThrowingTaskGroup(of: ([Double], [Double]).self) { group in
            for task in 0..<tasks {
                let share = rounds / tasks + (task < rounds % tasks ? 1 : 0)
                group.addTask { try await time(share, evictor: evictor, canned: canned) }
            }
            var call: [Double] = []
            var decode: [Double] = []
            for try await (calls, decodes) in group {
                call += calls
                decode += decodes
            }
            return (call, decode)
        }
        let callMedian = median(samples.0)
        let decodeMedian = median(samples.1)
        print(
            "profile canned-inplace, \(rounds) rounds over \(tasks) task(s), each after a URLSession GET+decode: "
                + "NetLayer call \(Report.fixed(callMedian, 1)) µs, decode alone \(Report.fixed(decodeMedian, 1)) µs "
                + "(medians); NetLayer adds \(Report.fixed(callMedian - decodeMedian, 1)) µs in place")
    }

    /// `rounds` timed canned calls and as many timed decodes, each after a real GET+decode.
    private static func time(_ rounds: Int, evictor: URLSessionClient, canned: CannedClient) async throws -> (
        [Double], [Double]
    ) {
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
        return (call, decode)
    }
}
