import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

/// Sends a call once more when the first answer is a 500, as a user's retrying interceptor might.
struct AgainOn500: Interceptor {
    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        let first = try await next(request)
        guard first.head.statusCode == 500 else { return first }
        first.body.cancel()
        return try await next(request)
    }
}

/// Counts the answers a call's outer interceptor sees, as a user's access log would.
final class OuterLog: Interceptor, Sendable {
    let statuses = LockedValue<[Int]>([])
    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        let response = try await next(request)
        statuses.withLock { $0.append(response.head.statusCode) }
        return response
    }
}

extension WireTests.DebugOutputTests {
    /// The number `(\d+\.\d)` a debug line carries when the whole line matches `pattern`; `nil`
    /// when it does not match.
    static func number(in line: String, matching pattern: String) throws -> Double? {
        guard let match = try Regex(pattern).wholeMatch(in: line), let text = match.output[1].substring
        else { return nil }
        return Double(text)
    }

    /// The lines of `printed` from the `index`-th (from 0) line starting with `start` on, up to
    /// the next such line.
    static func block(_ printed: [String], starting start: String, index: Int) -> [String] {
        let starts = printed.indices.filter { printed[$0].hasPrefix(start) }
        guard index < starts.count else { return [] }
        let end = index + 1 < starts.count ? starts[index + 1] : printed.endIndex
        return Array(printed[starts[index]..<end])
    }

    @Test func aRateLimitWaitIsPrintedApartFromTheExchange() async throws {
        // `← 201 Created · 1003.7 ms` hid that 1,000 ms of it were the rate limit's.
        let server = try Self.server.get()
        let lines = LineCollector()
        let api = ResilientAPI(
            server: server, rateLimits: [.perSecond(1)],
            options: ResourceOptions(debug: true, log: lines.sink))
        let path = uniquePath()
        server.route(path) { _ in .text("made", status: 201) }
        try await api.target(path).makeExecutor().execute()
        let started = ContinuousClock.now
        try await api.target(path).makeExecutor().execute()
        let elapsed = (ContinuousClock.now - started).seconds * 1000
        let printed = lines.lines
        let request = "[NetLayer] → GET http://\(server.hostAndPort)\(path)"
        let first = Self.block(printed, starting: request, index: 0)
        let second = Self.block(printed, starting: request, index: 1)
        try #require(first.count == 4 && second.count == 5, "\(printed)")
        #expect(!first.contains { $0.contains("⏸") })
        let waited = try #require(
            try Self.number(
                in: second[1],
                matching: #"\[NetLayer\] ⏸ waited (\d+\.\d) ms for the rate limit \(1 per 1 s\)"#),
            "\(second[1])")
        let exchange = try #require(
            try Self.number(in: second[2], matching: #"\[NetLayer\] ← 201 Created · (\d+\.\d) ms · 4 bytes"#),
            "\(second[2])")
        // The wait is the limit's (about a second less the first call), the exchange its own.
        #expect(waited >= 500, "\(second[1])")
        #expect(
            exchange < 500 && waited + exchange <= elapsed + 1, "\(second[1]) \(second[2]), \(elapsed) ms")
        #expect(second[4] == "[NetLayer]   made")
        #expect(server.requests(path: path).count == 2)
    }

    @Test func waitsForAConcurrencySlotAndForAServersPauseArePrinted() async throws {
        let server = try Self.server.get()
        let lines = LineCollector()
        let api = ResilientAPI(
            server: server, maxConcurrentRequests: 1, options: ResourceOptions(debug: true, log: lines.sink))
        let path = uniquePath()
        let gate = TestGate()
        defer { gate.open() }
        let held = await HeldSlot.hold(api, on: server, path: path, until: gate)
        let waiting = Task { try await api.target(path).makeExecutor().execute() }
        let deadline = ContinuousClock.now + .seconds(5)
        while api.slotWaiters == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(300))
        gate.open()
        _ = try await held.value
        _ = try await waiting.value
        // A server's pause (a 429 or 503 with Retry-After) holds the next call.
        api.limiter.pause(for: .milliseconds(300))
        try await api.target(path).makeExecutor().execute()
        let waits = lines.lines.filter { $0.contains("⏸") }
        try #require(waits.count == 2, "\(lines.lines)")
        let slot = try Self.number(
            in: waits[0],
            matching: #"\[NetLayer\] ⏸ waited (\d+\.\d) ms for a concurrency slot \(1 at once\)"#)
        #expect((slot ?? 0) >= 250, "\(waits[0])")
        let pause = try Self.number(
            in: waits[1],
            matching: #"\[NetLayer\] ⏸ waited (\d+\.\d) ms for the pause a server asked for \(Retry-After\)"#)
        #expect((pause ?? 0) >= 250, "\(waits[1])")
        #expect(server.requests(path: path).count == 2)
    }

    @Test func everyDurationIsPrintedInRoundedMilliseconds() async throws {
        let server = try Self.server.get()
        let lines = LineCollector()
        let api = ResilientAPI(
            // A window longer than the retry's 100 ms, so the retry waits for it however slow the
            // machine is (a 2 ms window had passed by then under the thread sanitizer: no wait).
            server: server, rateLimits: [RateLimit(requests: 1, per: .milliseconds(400.04095))],
            options: ResourceOptions(
                debug: true, log: lines.sink,
                retryPolicy: .fixed(delay: .milliseconds(2.04095), maximumAttempts: 2)
            ))
        let path = uniquePath()
        let hits = HitCounter()
        server.route(path) { _ in hits.next() == 1 ? .text("busy", status: 503) : .text("ok") }
        try await api.target(path).makeExecutor().execute()
        _ = try? await api.target("/delay/1000").makeExecutor(timeout: .milliseconds(50)).execute()
        let printed = lines.lines
        #expect(
            printed.contains("[NetLayer] ↻ retry 2/2 in 100.0 ms after 503 Service Unavailable"), "\(printed)"
        )
        // Not `0.00204095 seconds`: every time a line ends with, or a retry waits, is in
        // milliseconds to a tenth.
        let timed = printed.filter { $0.hasPrefix("[NetLayer] ←") || $0.hasPrefix("[NetLayer] ✕") }
        #expect(timed.count == 2, "\(printed)")
        for line in timed {
            #expect(line.wholeMatch(of: try Regex(#".* · \d+\.\d ms( · \d+ bytes)?"#)) != nil, "\(line)")
        }
        #expect(!printed.contains { $0.contains(" seconds") }, "\(printed)")
        #expect(
            printed.contains {
                $0.hasPrefix("[NetLayer] ⏸ waited ")
                    && $0.hasSuffix(" ms for the rate limit (1 per 400.041 ms)")
            })
        #expect(RateLimit.perSecond(5).description == "5 per 1 s")
        #expect(
            RateLimit(requests: 10, per: .milliseconds(250)).paced().description == "10 per 250 ms, paced")
        #expect(RateLimit.perHour(1000).description == "1000 per 1 h")
        #expect(RateLimit.perMinute(30).description == "30 per 1 min")
        #expect(RequestLog.milliseconds(.nanoseconds(2_040_950)) == "2.0 ms")
        #expect(RequestLog.milliseconds(.microseconds(1_003_680)) == "1003.7 ms")
    }

    @Test func aReplayAfterA401IsPrintedWithItsReason() async throws {
        // An access-log interceptor saw `200` six times while six 401s happened underneath.
        let server = try Self.server.get()
        let path = uniquePath()
        // Each token is accepted once: every call is rejected first, then replayed.
        let accepted = HitCounter()
        let rejected = HitCounter()
        server.route(path) { request in
            let expected = "Bearer sekret-\(accepted.count + 1)"
            guard request.header("Authorization") == expected else {
                _ = rejected.next()
                return .text("expired", status: 401)
            }
            _ = accepted.next()
            return .text("ok")
        }
        let auth = Authentication.bearer(token: "sekret-0") { old in
            "sekret-\((Int(old.dropFirst("sekret-".count)) ?? 0) + 1)"
        }
        let lines = LineCollector()
        let outer = OuterLog()
        let api = ResilientAPI(
            server: server,
            options: ResourceOptions(
                debug: true, log: lines.sink, interceptors: [outer], authentication: auth))
        for _ in 0..<6 { try await api.target(path).makeExecutor().execute() }
        #expect(outer.statuses.withLock { $0 } == Array(repeating: 200, count: 6))
        #expect(rejected.count == 6 && server.requests(path: path).count == 12)
        let printed = lines.lines
        let url = "http://\(server.hostAndPort)\(path)"
        for call in 0..<6 {
            let block = Self.block(printed, starting: "[NetLayer] → GET \(url)", index: call)
            try #require(block.count == 5, "\(printed)")
            #expect(
                block[1]
                    == "[NetLayer] ↻ replay after 401 Unauthorized: the authenticator refreshed the credentials"
            )
            #expect(block[2].hasPrefix("[NetLayer] ← 200 OK · ") && block[2].hasSuffix(" ms · 2 bytes"))
        }
        #expect(!printed.joined().contains("sekret"))
    }

    @Test func a401ThatIsNotReplayedIsPrintedBeforeTheFailure() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        server.route(path, TestRoutes.acceptingBearer("never"))
        struct Denied: Error {}
        let auth = Authentication.bearer(token: "sekret-old") { _ in throw Denied() }
        let lines = LineCollector()
        let api = ResilientAPI(
            server: server, options: ResourceOptions(debug: true, log: lines.sink, authentication: auth))
        let error = await #expect(throws: NetLayerError.self) {
            try await api.target(path).makeExecutor().execute()
        }
        #expect(error?.code == .authenticationFailed)
        let printed = lines.lines
        try #require(printed.count == 3, "\(printed)")
        #expect(printed[1] == "[NetLayer] ↻ no replay after 401 Unauthorized")
        #expect(
            printed[2].hasPrefix("[NetLayer] ✕ GET ")
                && printed[2].contains("refreshing the credentials failed"))
        #expect(!printed.joined().contains("sekret"))
        #expect(server.requests(path: path).count == 1)
    }

    @Test func anInterceptorThatSendsAgainIsPrinted() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        let hits = HitCounter()
        server.route(path) { _ in hits.next() == 1 ? .text("oops", status: 500) : .text("ok") }
        let lines = LineCollector()
        let api = ResilientAPI(
            server: server,
            options: ResourceOptions(debug: true, log: lines.sink, interceptors: [AgainOn500()]))
        try await api.target(path).makeExecutor().execute()
        let printed = lines.lines
        try #require(printed.count == 5, "\(printed)")
        #expect(printed[0] == "[NetLayer] → GET http://\(server.hostAndPort)\(path)")
        #expect(
            printed[1] == "[NetLayer] ↻ sent again by interceptor AgainOn500 after 500 Internal Server Error")
        #expect(printed[2].hasPrefix("[NetLayer] ← 200 OK · "))
        #expect(hits.count == 2)
    }
}
