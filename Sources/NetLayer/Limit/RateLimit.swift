/// One rate limit: at most `requests` requests may start in **any** window of length `window`.
///
/// The window slides: it is not aligned to wall-clock seconds, so the limit holds over every interval
/// of length `window`, wherever it starts. A burst of up to `requests` requests may start at once;
/// after that each further request waits until the oldest of the last `requests` grants is `window` old.
///
/// A resource may hold several limits (for example `.perSecond(5)` and `.perHour(1000)`); a request
/// starts only when every one of them allows it.
///
/// ```swift
/// let limits = [RateLimit(requests: 5, per: .seconds(1)), .perHour(1000)]
/// ```
///
/// Invalid values never crash:
/// - `requests` below 1 is clamped to 1 (one request per window).
/// - A `window` of zero or less means "no limit": such a limit is ignored and lets every request through
///   (see ``isUnlimited``).
public struct RateLimit: Sendable, Hashable {
    /// How many requests may start within any window of length ``window``. Always at least 1.
    public let requests: Int

    /// The length of the sliding window. Zero or negative means this limit imposes no limit.
    public let window: Duration

    /// Creates a limit of `requests` requests per sliding window of length `window`.
    ///
    /// - Parameters:
    ///   - requests: The number of requests allowed to start within any window of length `window`.
    ///     Values below 1 are clamped to 1.
    ///   - window: The length of the sliding window, measured on a monotonic clock. A value of zero or
    ///     less makes this limit a no-op (``isUnlimited`` is `true`).
    public init(requests: Int, per window: Duration) {
        self.requests = max(1, requests)
        self.window = window
    }

    /// `true` when this limit imposes nothing, that is when ``window`` is zero or negative.
    public var isUnlimited: Bool { window <= .zero }

    /// At most `requests` requests per second (sliding). `requests` below 1 is clamped to 1.
    public static func perSecond(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(1))
    }

    /// At most `requests` requests per minute (sliding). `requests` below 1 is clamped to 1.
    public static func perMinute(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(60))
    }

    /// At most `requests` requests per hour (sliding). `requests` below 1 is clamped to 1.
    public static func perHour(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(3600))
    }
}

extension RateLimit: CustomStringConvertible {
    /// A short human-readable form, such as `5 per 1.0 seconds`, or `unlimited`.
    public var description: String {
        isUnlimited ? "unlimited" : "\(requests) per \(window)"
    }
}
