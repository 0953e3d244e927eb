import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When and how soon a failed call is sent again. Set it on ``ResourceOptions/retryPolicy``,
/// override it per target (``Target/retryPolicy``) or per call (``Executor/retry(_:)``).
///
/// Whatever the policy, NetLayer never retries:
/// - a call whose method is not idempotent (POST, PATCH, …) unless the call is marked with
///   ``Executor/idempotent(_:)`` (say, a POST carrying an `Idempotency-Key`);
/// - a cancelled call, or one whose total deadline would pass during the wait;
/// - a body that can no longer be sent the same way (a file that shrank or vanished); the error
///   says so;
/// - when the resource's ``RetryBudget`` is spent.
///
/// A `Retry-After` header (seconds or an HTTP-date) replaces the computed delay; when it asks for
/// longer than ``maximumDelay``, the response is returned instead of retried sooner than the server
/// asked. Every retry waits at least ``minimumDelay`` (100 ms), whatever the policy computes or a
/// server asks for (`Retry-After: 0`), so no policy can send a request in a tight loop.
public struct RetryPolicy: Sendable {
    /// The most attempts, the first one included. `1` never retries.
    public var maximumAttempts: Int
    /// The longest wait between two attempts, `Retry-After` included. Clamped to
    /// ``Timeouts/maximum``.
    public var maximumDelay: Duration
    /// Responses that are retried. Default ``retryableStatusCodes``. Only 300–599 can be listed:
    /// any other code (a 2xx is a success, a 1xx is never a final response, and anything outside
    /// 100–599 is not an HTTP status) makes every call throw ``NetLayerError/Code/invalidValue``
    /// before anything is sent. An empty set retries transient transport errors only. A
    /// ``predicate(backoff:_:)`` ignores it unless it calls ``qualifiesByDefault(_:)``.
    public var statusCodes: Set<Int>
    private let delay: Delay
    private let shouldRetry: (@Sendable (RetryAttempt) -> Bool)?

    enum Delay: Sendable {
        case none
        case fixed(Duration)
        case exponential(base: Duration, multiplier: Double)
    }

    /// The shortest wait before any retry: 100 ms. A predicate that always retries against a
    /// server answering `Retry-After: 0` sends at most ten requests a second.
    public static let minimumDelay: Duration = .milliseconds(100)

    /// 408 Request Timeout, 429 Too Many Requests, 500 Internal Server Error, 502 Bad Gateway,
    /// 503 Service Unavailable and 504 Gateway Timeout: the statuses that say "try again later".
    public static let retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Never retry. The default, because only the caller knows whether a repeat is welcome.
    public static let none = RetryPolicy(maximumAttempts: 1, maximumDelay: .zero, delay: .none)

    /// The same wait before every retry.
    /// - Parameters:
    ///   - delay: Default 1 s.
    ///   - maximumAttempts: Attempts in all, the first included. Default 3.
    ///   - maximumDelay: The longest `Retry-After` honoured. Default 60 s.
    ///   - statusCodes: The response statuses retried, say `[502, 503]`; transient transport
    ///     errors are retried whatever it holds. Default ``retryableStatusCodes``. A code outside
    ///     300–599 makes every call throw ``NetLayerError/Code/invalidValue`` (see
    ///     ``statusCodes``).
    public static func fixed(
        delay: Duration = .seconds(1), maximumAttempts: Int = 3, maximumDelay: Duration = .seconds(60),
        statusCodes: Set<Int> = RetryPolicy.retryableStatusCodes
    ) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: maximumAttempts, maximumDelay: maximumDelay, delay: .fixed(delay),
            statusCodes: statusCodes)
    }

    /// Exponential backoff with full jitter: before retry *n* it waits a random time between zero
    /// and `min(maximumDelay, base × multiplier^(n-1))`, so clients that failed together do not
    /// come back together.
    /// - Parameters:
    ///   - base: Default 200 ms.
    ///   - multiplier: Default 2.
    ///   - maximumDelay: The cap on each wait, `Retry-After` included. Default 30 s.
    ///   - maximumAttempts: Attempts in all, the first included. Default 4.
    ///   - statusCodes: The response statuses retried, say `[502, 503]`; transient transport
    ///     errors are retried whatever it holds. Default ``retryableStatusCodes``. A code outside
    ///     300–599 makes every call throw ``NetLayerError/Code/invalidValue`` (see
    ///     ``statusCodes``).
    public static func exponential(
        base: Duration = .milliseconds(200), multiplier: Double = 2, maximumDelay: Duration = .seconds(30),
        maximumAttempts: Int = 4, statusCodes: Set<Int> = RetryPolicy.retryableStatusCodes
    ) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: maximumAttempts, maximumDelay: maximumDelay,
            delay: .exponential(base: base, multiplier: multiplier), statusCodes: statusCodes)
    }

    /// A policy whose predicate decides which failures are retried (instead of
    /// ``statusCodes`` and the transient transport errors), waiting as `backoff` does. The rules
    /// listed on ``RetryPolicy`` still hold.
    /// - Parameters:
    ///   - backoff: Supplies the delays, the caps and the ``statusCodes`` that
    ///     ``qualifiesByDefault(_:)`` uses. Default
    ///     ``exponential(base:multiplier:maximumDelay:maximumAttempts:statusCodes:)``.
    ///   - shouldRetry: Called after each failed attempt.
    public static func predicate(
        backoff: RetryPolicy = .exponential(), _ shouldRetry: @escaping @Sendable (RetryAttempt) -> Bool
    ) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: backoff.maximumAttempts, maximumDelay: backoff.maximumDelay,
            delay: backoff.delay,
            statusCodes: backoff.statusCodes, shouldRetry: shouldRetry)
    }

    private init(
        maximumAttempts: Int, maximumDelay: Duration, delay: Delay,
        statusCodes: Set<Int> = RetryPolicy.retryableStatusCodes,
        shouldRetry: (@Sendable (RetryAttempt) -> Bool)? = nil
    ) {
        self.maximumAttempts = maximumAttempts
        self.maximumDelay = maximumDelay
        self.delay = delay
        self.statusCodes = statusCodes
        self.shouldRetry = shouldRetry
    }

    /// Whether this policy never retries.
    var isNone: Bool { maximumAttempts <= 1 }

    /// Why the policy cannot be used, or `nil`.
    var problem: NetLayerError? {
        if maximumAttempts < 1 {
            return .invalidValue(
                part: "retryPolicy.maximumAttempts",
                reason: "\(maximumAttempts) is less than 1; use RetryPolicy.none for no retries")
        }
        if maximumDelay < .zero {
            return .invalidValue(
                part: "retryPolicy.maximumDelay", reason: "\(RequestLog.span(maximumDelay)) is negative")
        }
        if let reason = Self.statusCodesProblem(statusCodes) {
            return .invalidValue(part: "retryPolicy.statusCodes", reason: reason)
        }
        switch delay {
        case .none: return nil
        case .fixed(let value) where value < .zero:
            return .invalidValue(part: "retryPolicy.delay", reason: "\(RequestLog.span(value)) is negative")
        case .exponential(let base, let multiplier)
        where base < .zero || !(multiplier >= 1) || !multiplier.isFinite:
            return .invalidValue(
                part: "retryPolicy",
                reason:
                    "base \(RequestLog.span(base)) must not be negative and multiplier \(multiplier) must be at least 1"
            )
        default: return nil
        }
    }

    /// Why `codes` cannot be retried, or `nil`: each must be a final, unsuccessful HTTP status,
    /// 300–599.
    static func statusCodesProblem(_ codes: Set<Int>) -> String? {
        // Checked for every call: no allocation when every code is usable.
        if codes.allSatisfy({ (300...599).contains($0) }) { return nil }
        let refused = codes.filter { !(300...599).contains($0) }.sorted()
        guard let first = refused.first else { return nil }
        let listed =
            refused.prefix(5).map(String.init).joined(separator: ", ") + (refused.count > 5 ? ", …" : "")
        let why: String
        switch first {
        case 100...199: why = "1xx responses are interim, never the final response a retry could follow"
        case 200...299: why = "2xx responses are successes; retrying one would repeat a call that worked"
        default: why = "HTTP status codes are 100–599"
        }
        return "\(listed) cannot be retried: only 300–599 can be listed (\(why))"
    }

    /// The cap actually applied.
    var cap: Duration { min(max(.zero, maximumDelay), Timeouts.maximum) }

    /// The wait before attempt `attempt + 1`, before `Retry-After` is considered.
    /// - Parameter random: A number in `0...1` (full jitter).
    func delay(after attempt: Int, random: Double) -> Duration {
        switch delay {
        case .none: return .zero
        case .fixed(let value): return min(value, cap)
        case .exponential(let base, let multiplier):
            let exponent = Double(max(0, attempt - 1))
            let ceiling = min(base.seconds * pow(multiplier, exponent), cap.seconds)
            guard ceiling.isFinite, ceiling > 0 else { return ceiling > 0 ? cap : .zero }
            let jittered = ceiling * min(1, max(0, random))
            return .nanoseconds(Int64(jittered * 1e9))
        }
    }

    /// Whether the failure of `attempt` qualifies for a retry, before the rules every policy keeps.
    func qualifies(_ attempt: RetryAttempt) -> Bool {
        if let shouldRetry { return shouldRetry(attempt) }
        return qualifiesByDefault(attempt)
    }

    /// Whether `attempt` is retried by the default rules: its status is one of ``statusCodes``,
    /// or its error ``isTransient(_:)``. A ``predicate(backoff:_:)`` can extend them:
    /// `.predicate { $0.response?.statusCode == 409 || RetryPolicy.none.qualifiesByDefault($0) }`.
    public func qualifiesByDefault(_ attempt: RetryAttempt) -> Bool {
        if let status = attempt.response?.statusCode { return statusCodes.contains(status) }
        return attempt.error.map(Self.isTransient) ?? false
    }

    /// Connection failures worth another try: a timeout, a lost or refused connection, DNS, no
    /// network, a malformed or cut-short response (Linux reports the latter as `URLError.unknown`). Not cancellation, TLS trust failures or bad URLs.
    public static func isTransient(_ error: NetLayerError) -> Bool {
        if error.code == .timedOut { return true }
        guard error.code == .transport, let code = error.urlError?.code else { return false }
        return transientURLErrors.contains(code)
    }

    static let transientURLErrors: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet, .badServerResponse, .resourceUnavailable,
        // Linux URLSession reports a body cut short ("transfer closed with N bytes remaining to
        // read", libcurl's partial transfer) as an unknown error.
        .unknown,
    ]
}

/// One failed attempt, as a ``RetryPolicy/predicate(backoff:_:)`` sees it.
public struct RetryAttempt: Sendable {
    /// The attempt that failed, from 1.
    public let attempt: Int
    /// The request that was sent.
    public let request: TransportRequest
    /// The response head, when the server answered.
    public let response: ResponseHead?
    /// The error, when it did not.
    public let error: NetLayerError?
}

/// A token bucket per resource that bounds retries: each retry spends one token, each success
/// puts back ``refillPerSuccess``; with no token left, failures are returned instead of retried.
/// A failing service then sees about `1 + refillPerSuccess` times its normal load, not
/// `maximumAttempts` times.
public struct RetryBudget: Sendable, Hashable {
    /// Tokens when full, and at the start.
    public var capacity: Double
    /// Tokens a successful call puts back.
    public var refillPerSuccess: Double

    /// Creates a budget.
    /// - Parameters:
    ///   - capacity: Default 10.
    ///   - refillPerSuccess: Default 0.1 (one retry per ten successes in the long run).
    public init(capacity: Double = 10, refillPerSuccess: Double = 0.1) {
        self.capacity = capacity.isFinite ? max(0, capacity) : 10
        self.refillPerSuccess = refillPerSuccess.isFinite ? max(0, refillPerSuccess) : 0.1
    }

    /// 10 tokens, 0.1 back per success: short bursts of failures are retried, a service that stays
    /// down gets about 10% extra traffic.
    public static let `default` = RetryBudget()

    /// No limit on retries beyond each policy's own attempts.
    public static let unlimited = RetryBudget(capacity: .greatestFiniteMagnitude, refillPerSuccess: 0)
}

/// The live tokens of a ``RetryBudget``.
final class RetryTokens: Sendable {
    private let budget: RetryBudget
    private let tokens: LockedValue<Double>

    init(_ budget: RetryBudget) {
        self.budget = budget
        tokens = LockedValue(budget.capacity)
    }

    /// Takes one token; `false` when there is none.
    func spend() -> Bool {
        tokens.withLock { value in
            guard value >= 1 else { return false }
            value -= 1
            return true
        }
    }

    /// Puts back a success's share.
    func refill() {
        guard budget.refillPerSuccess > 0 else { return }
        tokens.withLock { $0 = min(budget.capacity, $0 + budget.refillPerSuccess) }
    }

    var available: Double { tokens.withLock { $0 } }
}
