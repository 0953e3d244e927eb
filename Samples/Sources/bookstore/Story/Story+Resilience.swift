import BookstoreServer
import Foundation
import NetLayer

/// Docs/Resilience.md, run against the embedded service: access tokens that expire, a flaky
/// warehouse, orders that lose their first answer, an HTML page where JSON belongs, and a burst
/// that runs into the server's rate limit. The client recovers from each, and every step checks
/// what the server saw.
extension Story {
    /// The signed-in client of the resilience steps, and its access log.
    struct Resilient {
        let host: String
        let session: Session
        let client: Resilience.SignedInClient
        let log: AccessLogLines
        var bookstore: Resilience.BookstoreAPI { client.bookstore }
    }

    func resilience() async throws {
        let resilient = try await expiringTokens()
        try await spentRefreshToken(resilient)
        try await flakyWarehouse(resilient)
        try await onlyUnavailableRetried(resilient)
        try await noRetryAndPause(resilient)
        try await idempotentOrder(resilient)
        try await validationHooks(resilient)
        try await burstWithRetries(resilient)
    }

    /// Signs in, calls with the fresh token, lets it expire, and calls again: one refresh for all.
    func expiringTokens() async throws -> Resilient {
        begin("Expiring access tokens: 6 calls rejected together, 1 refresh, each replayed once")
        Console.info("(after a 1 s pause, so the server's window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        let host = "127.0.0.1:\(server.port)"
        let log = AccessLogLines()
        let session = await server.signIn()
        let client = Resilience.SignedInClient(
            host: host, accessToken: session.accessToken, refreshToken: session.refreshToken,
            accessLog: Resilience.AccessLog { log.append($0) })
        let bookstore = client.bookstore

        let fresh = try await Self.getBooks(1...4, on: bookstore)
        try expect(fresh.allSatisfy { $0.attempts == 1 }, "fresh token: attempts \(fresh.map(\.attempts))")
        Console.ok("4 calls with the signed-in access token: attempts \(fresh.map(\.attempts))")

        await server.expireAccessTokens()
        Console.info("the service ends the access token's life (as its lifetime running out would)")
        let before = await server.sessionStats()
        let renewed = try await Self.getBooks(5...10, on: bookstore)
        let after = await server.sessionStats()
        let rejected = after.expiredTokenRejections - before.expiredTokenRejections
        let replayed = renewed.filter { $0.attempts == 2 }.count
        let refreshes = client.authentication.refreshCount
        try expect(
            refreshes == 1 && after.refreshes - before.refreshes == 1,
            "expected 1 refresh; Authentication counted \(refreshes), the server \(after.refreshes - before.refreshes)"
        )
        try expect(
            rejected >= 2 && rejected == replayed && renewed.allSatisfy { (1...2).contains($0.attempts) },
            "\(rejected) × 401 invalid_token, attempts \(renewed.map(\.attempts))")
        let current = await client.tokens.accessToken
        try expect(current != session.accessToken, "the token store kept the old access token")
        Console.ok(
            "\(rejected) of \(renewed.count) calls got 401 invalid_token; refreshed once (refreshCount \(refreshes))"
        )
        Console.ok("each replayed once with the new token: attempts \(renewed.map(\.attempts))")
        record("expired access token: \(rejected) calls rejected together, 1 refresh, each replayed once")
        return Resilient(host: host, session: session, client: client, log: log)
    }

    /// A second client holding the refresh token the first one already spent: its refresh fails.
    func spentRefreshToken(_ resilient: Resilient) async throws {
        begin("A refresh that fails (the refresh token was spent): SignInRequired")
        let spent = Resilience.TokenStore(
            accessToken: resilient.session.accessToken, refreshToken: resilient.session.refreshToken,
            auth: Resilience.AuthAPI(host: resilient.host, limiter: resilient.client.quota))
        let spentAuthentication = Authentication(Resilience.SessionAuthenticator(tokens: spent))
        let stale = Resilience.BookstoreAPI(
            host: resilient.host, authentication: spentAuthentication, limiter: resilient.client.quota,
            accessLog: Resilience.AccessLog { resilient.log.append($0) })
        let failed: NetLayerError
        do {
            let title = try await stale.title(of: 1)
            throw StoryFailure(message: "a spent refresh token still read \(title ?? "nil")")
        } catch let signIn as Resilience.SignInRequired {
            failed = signIn.cause
        }
        let cause = failed.underlying as? NetLayerError
        let refused = await server.sessionStats().refusedRefreshes
        try expect(
            failed.code == .authenticationFailed && cause?.statusCode == 400
                && cause?.apiError?.error == "invalid_grant" && refused == 1
                && spentAuthentication.refreshCount == 1,
            "refresh failure: \(failed), underlying \(cause.map(String.init(describing:)) ?? "-")")
        Console.ok("SignInRequired, caused by .authenticationFailed: \(failed.message)")
        Console.info("underlying: \(cause?.statusCode ?? 0) \(cause?.apiError?.error ?? "")")
        record("a spent refresh token: .authenticationFailed carrying the 400 invalid_grant → sign in again")
    }

    /// The warehouse fails twice, then answers: the target's predicate policy retries.
    func flakyWarehouse(_ resilient: Resilient) async throws {
        begin("A flaky warehouse (503 + Retry-After, 500, 200): retried by the target's policy")
        let stock = try await resilient.bookstore.stock().get(bookID: 3)
        let lines = resilient.log.lines.filter { $0.hasPrefix("GET /books/:id/stock") }
        let served = await server.warehouseStats().stockRequests[3] ?? 0
        try expect(
            stock.attempts == 3 && served == 3 && stock.value.bookId == 3,
            "stock: attempts \(stock.attempts), the server saw \(served)")
        try expect(
            lines.count == 3 && lines[0].contains("#1 → 503") && lines[1].contains("#2 → 500")
                && lines[2].contains("#3 → 200"),
            "the access log shows \(lines)")
        Console.ok(
            "\(stock.value.inStock) in stock after \(stock.attempts) attempts in \(stock.duration.inSeconds) (the server counted \(served))"
        )
        record("the flaky warehouse answered 503, 500, 200: recovered in \(stock.attempts) attempts")
    }

    /// A policy that lists the statuses it retries: the warehouse's 503 is retried, its 500 is not.
    func onlyUnavailableRetried(_ resilient: Resilient) async throws {
        begin("statusCodes: [502, 503]: the warehouse's 503 is retried, its 500 thrown at once")
        let failed = try await expectStatus(500, "stock retrying only 502 and 503") {
            try await resilient.bookstore.stock().getRetryingOnlyUnavailable(bookID: 4)
        }
        let served = await server.warehouseStats().stockRequests[4] ?? 0
        try expect(
            failed.attempts == 2 && served == 2,
            "retrying only 502 and 503: attempts \(failed.attempts), the server saw \(served)")
        Console.ok("503 retried, then 500 thrown (attempts \(failed.attempts), the server counted \(served))")
        record("statusCodes: [502, 503]: the warehouse's 503 retried, its 500 not: \(served) requests")
    }

    /// The same failure not retried; its Retry-After pauses every resource of the shared limiter.
    func noRetryAndPause(_ resilient: Resilient) async throws {
        begin(".retry(.none): the 503 at once, and the pause its Retry-After puts on the shared limiter")
        let once = try await expectStatus(503, "stock without retries") {
            try await resilient.bookstore.stock().getOnce(bookID: 5)
        }
        let pausedUntil = resilient.client.quota.pausedUntil
        let waitStart = ContinuousClock.now
        _ = try await resilient.bookstore.books().get(id: 1)
        let waited = ContinuousClock.now - waitStart
        let retryAfter = once.header("Retry-After") ?? "-"
        try expect(
            once.attempts == 1 && retryAfter == "1",
            "stock without retries: attempts \(once.attempts), Retry-After \(retryAfter)")
        try expect(
            pausedUntil != nil && waited >= .milliseconds(500),
            "no pause: pausedUntil \(pausedUntil.map { "\($0)" } ?? "nil"), the next call waited \(waited.inSeconds)"
        )
        Console.ok("503 thrown at once (attempts \(once.attempts), Retry-After: \(retryAfter))")
        Console.ok("the next call through the shared quota waited \(waited.inSeconds) for the pause")
        record("a 503 with Retry-After paused the shared limiter; the next call waited \(waited.inSeconds)")
    }

    /// The order service loses its first answer: the keyed POST is retried, the unmarked one is not.
    func idempotentOrder(_ resilient: Resilient) async throws {
        begin("A POST retried safely: an Idempotency-Key and .idempotent()")
        let orders = resilient.bookstore.orders()
        let placed = try await orders.place(Resilience.NewOrder(bookId: 2, quantity: 1))
        let afterPlace = await server.warehouseStats()
        try expect(
            placed.statusCode == 201 && placed.attempts == 2
                && placed.headerFields["Idempotent-Replayed"] == "true"
                && afterPlace.orders == 1 && afterPlace.orderRequests == 2,
            "order: \(placed.statusCode), attempts \(placed.attempts), \(afterPlace.orders) orders stored")
        Console.ok(
            "order #\(placed.value.id): 500, then 201 Idempotent-Replayed (attempts \(placed.attempts)); 1 order stored"
        )
        let unmarked = try await expectStatus(500, "a POST without .idempotent()") {
            try await orders.placeUnmarked(Resilience.NewOrder(bookId: 4, quantity: 1))
        }
        let stored = await server.warehouseStats().orders
        try expect(
            unmarked.attempts == 1 && unmarked.message.contains("not retried: POST is not idempotent")
                && stored == 2,
            "unmarked POST: attempts \(unmarked.attempts), \(unmarked.message)")
        Console.ok(
            "without .idempotent(): 500 thrown, attempts \(unmarked.attempts), “not retried: POST is not idempotent”"
        )
        Console.info("(the server stored that order anyway: only a repeat with its key could have found out)")
        record("a POST with an Idempotency-Key was retried (1 order stored); the unmarked POST was not")
    }

    /// Validation per resource (JSON), per target (NDJSON) and per call (a 404 is an answer).
    func validationHooks(_ resilient: Resilient) async throws {
        begin("Validation hooks: JSON per resource, NDJSON per target, a 404 accepted per call")
        let bookstore = resilient.bookstore
        let feed = try await bookstore.feed().books()
        let exists = try await bookstore.books().exists(id: 1)
        let missing = try await bookstore.books().exists(id: 9_999)
        try expect(feed.count >= 12 && exists && !missing, "feed \(feed.count), exists \(exists), \(missing)")
        Console.ok("feed: \(feed.count) books (application/x-ndjson, the target's validation)")
        Console.ok("exists(id: 1) → \(exists), exists(id: 9999) → \(missing) (the call accepts 404)")
        let html = try await expectFailure(.unacceptableContentType, "an HTML page where JSON belongs") {
            try await bookstore.promotions().current()
        }
        try expect(
            html.statusCode == 200 && html.bodyPreview()?.contains("Maintenance") == true,
            "promotions: \(html)")
        Console.ok(
            "a 200 text/html refused before decoding: .unacceptableContentType, the page kept in the error")
        record(
            "validation: NDJSON accepted by a target, a 404 by a call, an HTML 200 refused by the resource")
    }

    /// No client-side rate limit: the server's 429s pause the resource and the retries get through.
    func burstWithRetries(_ resilient: Resilient) async throws {
        begin("12 concurrent calls, no client-side limit: the 429s are waited out and retried")
        Console.info("(after a 1 s pause, so the server's window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        // No client-side limit: only the pauses the server asks for, each 10 s at most.
        let serverPaced = RequestLimiter(pausesOnRetryAfter: true, maximumPause: .seconds(10))
        let unlimited = Resilience.BookstoreAPI(
            host: resilient.host, authentication: resilient.client.authentication, limiter: serverPaced,
            accessLog: Resilience.AccessLog { _ in })
        let limitBefore = await server.rateLimitStats().rejected
        let burstStart = ContinuousClock.now
        let burst = try await Self.getBooks(1...12, on: unlimited)
        let elapsed = ContinuousClock.now - burstStart
        let tooMany = await server.rateLimitStats().rejected - limitBefore
        let attempts = burst.map(\.attempts)
        try expect(
            tooMany > 0 && attempts.reduce(0, +) - burst.count == tooMany,
            "\(tooMany) × 429 from the server, attempts \(attempts)")
        let spread = Dictionary(grouping: attempts, by: { $0 }).sorted { $0.key < $1.key }
            .map { "\($0.value.count) × \($0.key)" }.joined(separator: ", ")
        Console.ok(
            "all \(burst.count) succeeded in \(elapsed.inSeconds); \(tooMany) × 429 waited out and retried")
        Console.ok("attempts per call: \(spread)")
        record("12 calls without a client-side limit: \(tooMany) × 429 waited out and retried, all succeeded")
    }

    /// Gets these books at once, each in its own task; the responses in order.
    nonisolated static func getBooks(
        _ ids: some Sequence<Int>, on api: Resilience.BookstoreAPI
    ) async throws -> [Response<Book>] {
        try await withThrowingTaskGroup(of: (Int, Response<Book>).self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask { (index, try await api.books().get(id: id)) }
            }
            var responses: [(Int, Response<Book>)] = []
            for try await response in group { responses.append(response) }
            return responses.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

/// The access log's lines: printed as they come, and kept for the checks.
final class AccessLogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []

    func append(_ line: String) {
        lock.withLock { kept.append(line) }
        print("   │ \(line)")
    }

    var lines: [String] { lock.withLock { kept } }
}
