import Hummingbird

/// Counts what the rate limiter did, for the sample to report.
public struct RateLimitStats: Sendable {
    /// Requests let through.
    public var admitted = 0
    /// Requests answered 429.
    public var rejected = 0
    /// The shortest time in which `limit + 1` consecutive requests were admitted. At or above one
    /// second when clients keep to the limit; down to one second less the grace when arrival jitter
    /// was forgiven. `nil` until `limit + 1` requests were admitted.
    public var closestSpan: Duration?
}

/// A sliding-window log: a request is admitted when fewer than `limit` requests were admitted in the
/// `window` before it; otherwise it is refused with the time until the oldest one leaves the window.
///
/// Arrival times are not start times: a client that starts at most `limit` requests per `window`
/// (NetLayer's `RateLimit` guarantee) can still have them *arrive* a few milliseconds closer together,
/// when an early request waited for a new connection and a later one reused it (5–70 ms seen here,
/// more on a busy machine).
/// Like most API gateways, the window therefore forgives `grace` of such jitter: it measures
/// `window - grace` between arrivals.
actor SlidingWindow {
    let limit: Int
    let window: Duration
    let grace: Duration
    /// The last `limit` admissions, oldest first.
    private var recent: [ContinuousClock.Instant] = []
    private(set) var stats = RateLimitStats()

    init(limit: Int, window: Duration, grace: Duration = .zero) {
        precondition(limit > 0 && grace < window, "a rate limit admits at least one request per window")
        self.limit = limit
        self.window = window
        self.grace = grace
    }

    /// `nil` when admitted, else how long until a slot frees up.
    func admit(at now: ContinuousClock.Instant) -> Duration? {
        if recent.count == limit, let oldest = recent.first {
            let reopens = oldest + (window - grace)
            if now < reopens {
                stats.rejected += 1
                return reopens - now
            }
            stats.closestSpan = min(stats.closestSpan ?? now - oldest, now - oldest)
            recent.removeFirst()
        }
        recent.append(now)
        stats.admitted += 1
        return nil
    }
}

/// Answers 429 with `Retry-After` (whole seconds, rounded up) once the window is full.
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let window: SlidingWindow

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let arrived = ContinuousClock.now  // before the hop to the window's actor
        if let wait = await window.admit(at: arrived) {
            let seconds = max(
                1,
                Int(
                    (Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(
                        .up)))
            throw APIError(
                status: .tooManyRequests, code: "rate_limited",
                message: "more than \(window.limit) requests in \(window.window); retry in \(seconds) s",
                headers: [.retryAfter: String(seconds)])
        }
        return try await next(request, context)
    }
}
