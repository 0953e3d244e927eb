import Foundation
import NetLayer

extension Story {
    /// A target-level header overrides the resource's `Authorization`: the server answers 401.
    func wrongToken() async throws {
        begin("A stale token (target-level header overrides the resource's) gets 401")
        let stale = BooksTarget(
            resource: api, path: "/books", headers: ["Authorization": "Bearer expired-token"])
        let error = try await expectStatus(401, "list with a stale token") { try await stale.list() }
        Console.ok(
            "401: \(error.apiError?.message ?? "?") · WWW-Authenticate: \(error.header("WWW-Authenticate") ?? "-")"
        )
        try expect(error.apiError?.error == "unauthorized", "401 body is not the service's JSON error")
        record("a stale token got 401 \(error.apiError?.error ?? "")")
    }

    /// For contrast: the same 12 requests from a resource without a limiter run into the server's.
    func burstWithoutLimiter() async throws {
        begin("12 concurrent requests WITHOUT a client-side limit")
        Console.info("(after a 1 s pause, so the server's window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        let unlimited = BookstoreAPI(port: server.port, token: token, rateLimits: [])
        let burst = try await Self.burst(of: 12, on: unlimited)
        Console.info(
            "\(burst.succeeded) answered, \(burst.tooManyRequests) refused with 429, Retry-After: \(burst.retryAfter ?? "-")"
        )
        try expect(
            burst.tooManyRequests > 0,
            "the server never answered 429 to an unlimited burst: its limit is not working")
        Console.ok("the server enforces its limit")
        record("without a limiter, 12 concurrent requests got \(burst.tooManyRequests) × 429")
        // Do as the server says before the next burst.
        let wait = Int(burst.retryAfter ?? "1") ?? 1
        Console.info("waiting \(wait) s, as Retry-After asks")
        try await Task.sleep(for: .seconds(wait))
    }

    /// The real client: its `RateLimit(requests: 5, per: .seconds(1))` paces the burst, so the server
    /// never has to refuse one.
    func burstWithLimiter() async throws {
        begin("12 concurrent requests through BookstoreAPI (RateLimit 5 per 1 s)")
        let before = await server.rateLimitStats()
        let burst = try await Self.burst(of: 12, on: api)
        let after = await server.rateLimitStats()
        let refused = after.rejected - before.rejected
        let offsets = burst.finished.map { String(format: "%.1f", $0.secondsValue) }.joined(separator: " ")
        Console.info("finished at (s): \(offsets)")
        Console.info(
            "\(burst.succeeded) answered, \(burst.tooManyRequests) × 429 seen by the client, \(refused) × 429 sent by the server, in \(burst.elapsed.inSeconds)"
        )
        if let span = after.closestSpan {
            Console.info(
                "closest 6 consecutive requests the server admitted this run: \(span.inSeconds) apart (jitter forgiven: \(server.grace.inSeconds))"
            )
        }
        try expect(
            burst.tooManyRequests == 0 && refused == 0,
            "the rate-limited client still got \(max(burst.tooManyRequests, refused)) × 429")
        try expect(burst.succeeded == 12, "only \(burst.succeeded) of 12 requests succeeded")
        try expect(
            burst.elapsed >= .milliseconds(1900),
            "12 requests at 5/s took only \(burst.elapsed.inSeconds): the limiter did not pace them")
        Console.ok("0 × 429: the client-side limiter kept the burst within the server's limit")
        record("with the limiter, 12 concurrent requests took \(burst.elapsed.inSeconds) and got 0 × 429")
    }

    struct Burst: Sendable {
        var succeeded = 0
        var tooManyRequests = 0
        var retryAfter: String?
        /// When each request finished, from the start of the burst, sorted.
        var finished: [Duration] = []
        var elapsed: Duration = .zero
    }

    /// Fires `count` list requests at once on `api` and counts how they ended. Anything but success
    /// or a 429 is rethrown.
    nonisolated static func burst(of count: Int, on api: BookstoreAPI) async throws -> Burst {
        let start = ContinuousClock.now
        var burst = Burst()
        try await withThrowingTaskGroup(of: (Duration, NetLayerError?).self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        _ = try await api.books().list(page: index % 3 + 1)
                        return (.now - start, nil)
                    } catch let error as NetLayerError where error.statusCode == 429 {
                        return (.now - start, error)
                    }
                }
            }
            for try await (finished, error) in group {
                burst.finished.append(finished)
                if let error {
                    burst.tooManyRequests += 1
                    burst.retryAfter = error.header("Retry-After") ?? burst.retryAfter
                } else {
                    burst.succeeded += 1
                }
            }
        }
        burst.finished.sort()
        burst.elapsed = .now - start
        return burst
    }
}
