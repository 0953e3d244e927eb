import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests.Resilience {
    /// Issue 7's soak: 10,000 calls, 256 at a time, through a concurrency limit and a retry policy
    /// against a server that fails one request in twenty with 503. Every call succeeds, and resident
    /// memory settles instead of growing with the number of calls.
    @Suite("Resilience: soak", .timeLimit(.minutes(2)))
    struct SoakWireTests {
        static let total = 10_000
        static let concurrency = 256
        static let rounds = [1_000, 3_000, 3_000, 3_000]

        /// Runs `count` calls with `concurrency` workers; returns the failures.
        static func round(_ api: ResilientAPI, path: String, count: Int) async -> [NetLayerError] {
            let next = LockedValue(0)
            return await withTaskGroup(of: [NetLayerError].self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var failures: [NetLayerError] = []
                        while true {
                            let n: Int? = next.withLock { value in
                                guard value < count else { return nil }
                                defer { value += 1 }
                                return value
                            }
                            guard let n else { return failures }
                            do {
                                let book = try await api.target(path).makeExecutor(params: ["n": n])
                                    .execute(model: Book.self)
                                if book.title != "n\(n)" {
                                    failures.append(
                                        NetLayerError(.decodingFailed, "call \(n) got \(book.title)"))
                                }
                            } catch {
                                failures.append(
                                    error as? NetLayerError ?? NetLayerError(.transport, "\(error)"))
                            }
                        }
                    }
                }
                var all: [NetLayerError] = []
                for await failures in group { all += failures }
                return all
            }
        }

        @Test func tenThousandCallsAt256ConcurrentThroughLimitsAndRetriesAllSucceedAndMemorySettles()
            async throws
        {
            try await withDeadline(.seconds(60)) {
                // A server of its own, so its record of requests can be dropped between rounds.
                let server = try TestServer.start()
                defer { server.stop() }
                let path = "/soak"
                let served = TestLocked((requests: 0, failed: 0))
                server.route(path) { request in
                    let n = served.withLock { value in
                        value.requests += 1
                        return value.requests
                    }
                    if n % 20 == 0 {
                        served.withLock { $0.failed += 1 }
                        return .text("busy", status: 503)
                    }
                    let id = request.queryValue("n") ?? "?"
                    return .json(#"{"id":\#(n),"title":"n\#(id)"}"#)
                }
                let maxConcurrent = 48
                let api = ResilientAPI(
                    server: server, maxConcurrentRequests: maxConcurrent, connections: 64,
                    options: ResourceOptions(
                        retryPolicy: .exponential(
                            base: .milliseconds(5), maximumDelay: .milliseconds(100), maximumAttempts: 6),
                        retryBudget: RetryBudget(capacity: 100, refillPerSuccess: 0.1)))
                let before = residentBytes()
                var afterRound: [Int] = []
                var failures: [NetLayerError] = []
                let start = ContinuousClock.now
                for count in Self.rounds {
                    failures += await Self.round(api, path: path, count: count)
                    server.reset()
                    if let bytes = residentBytes() { afterRound.append(bytes) }
                }
                let duration = ContinuousClock.now - start
                let figures = served.withLock { $0 }
                let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
                print(
                    "[soak] \(Self.total) calls, \(Self.concurrency) concurrent, maxConcurrentRequests \(maxConcurrent): "
                        + "\(failures.count) failures, \(figures.requests) requests served (\(figures.failed) × 503), "
                        + "\(duration); RSS before \(before.map(mib) ?? "?"), after each round "
                        + afterRound.map(mib).joined(separator: " → ")
                        + (runsUnderThreadSanitizer ? " (thread sanitizer: memory not judged)" : ""))
                #expect(Self.rounds.reduce(0, +) == Self.total)
                #expect(
                    failures.isEmpty,
                    "\(failures.count) failures, first: \(String(describing: failures.first))")
                #expect(figures.requests == Self.total + figures.failed)
                #expect(figures.failed >= Self.total / 25)
                #expect(api.limiter.inFlight == 0)
                #expect(api.slotWaiters == 0)
                // Memory settles: after the warm-up round, 9,000 more calls add little. Generous
                // bounds: allocators keep freed pages, and Linux URLSession alone (raw `data(for:)`
                // against this server) grows by about 0.5 KiB per request. Not under the thread
                // sanitizer, whose shadow memory swings by tens of MiB.
                if afterRound.count == Self.rounds.count, !runsUnderThreadSanitizer {
                    let growth = afterRound[afterRound.count - 1] - afterRound[0]
                    #expect(growth < 64 << 20, "RSS grew by \(mib(growth)) over 9,000 calls")
                    let lastRound = afterRound[afterRound.count - 1] - afterRound[afterRound.count - 2]
                    #expect(lastRound < 32 << 20, "RSS grew by \(mib(lastRound)) in the last 3,000 calls")
                }
            }
        }
    }
}
