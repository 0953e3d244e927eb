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
/// Invalid values never crash and are never silently reinterpreted:
/// - `requests` below 1 or a `window` of zero or less makes every call of the resource throw
///   ``NetLayerError/Code/invalidValue`` naming the limit, before anything is sent (the resource's
///   `init` does not throw, as with an invalid domain).
/// - A `window` longer than ``maximumWindow`` is clamped to it.
public struct RateLimit: Sendable, Hashable {
    /// How many requests may start within any window of length ``window``, as given.
    public let requests: Int

    /// The length of the sliding window, as given.
    public let window: Duration

    /// Whether grants are also spread evenly: at least `window / requests` apart, so no burst
    /// reaches the server at once (a GCRA-style schedule). Default `false`; see ``paced()``.
    public private(set) var isPaced = false

    /// The longest window enforced: 366 days. Longer windows are clamped to it, since instants
    /// that far ahead overflow the clock's arithmetic.
    public static let maximumWindow: Duration = .seconds(366 * 86_400)

    /// Creates a limit of `requests` requests per sliding window of length `window`.
    ///
    /// - Parameters:
    ///   - requests: The number of requests allowed to start within any window of length `window`;
    ///     at least 1.
    ///   - window: The length of the sliding window, measured on a monotonic clock; longer than zero.
    public init(requests: Int, per window: Duration) {
        self.requests = requests
        self.window = window
    }

    /// Why this limit cannot be enforced, or `nil` when it is valid.
    var problem: String? {
        if requests < 1 { return "\(self) allows fewer than 1 request" }
        if window <= .zero { return "\(self) has a window that is not longer than zero" }
        return nil
    }

    /// The window actually enforced (clamped to ``maximumWindow``).
    var enforcedWindow: Duration { min(window, Self.maximumWindow) }

    /// The same limit with grants spread evenly over the window: one every `window / requests`
    /// at the most, and still at most `requests` in any window. For servers that count in fixed
    /// buckets or punish bursts.
    public func paced() -> RateLimit {
        var copy = self
        copy.isPaced = true
        return copy
    }

    /// At most `requests` requests per second (sliding).
    public static func perSecond(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(1))
    }

    /// At most `requests` requests per minute (sliding).
    public static func perMinute(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(60))
    }

    /// At most `requests` requests per hour (sliding).
    public static func perHour(_ requests: Int) -> RateLimit {
        RateLimit(requests: requests, per: .seconds(3600))
    }
}

extension RateLimit: CustomStringConvertible {
    /// A short human-readable form, such as `5 per 1 s`, `10 per 250 ms, paced`.
    public var description: String { "\(requests) per \(RequestLog.span(window))\(isPaced ? ", paced" : "")" }
}
