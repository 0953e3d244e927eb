import Foundation

/// Identifies one call among the events a ``CallObserver`` receives: unique within the process,
/// increasing in the order calls start.
public struct CallID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number, from 1.
    public let rawValue: UInt64

    /// The next identifier of the process.
    static func next() -> CallID {
        CallID(
            rawValue: counter.withLock { value in
                value += 1
                return value
            })
    }
    private static let counter = LockedValue<UInt64>(0)

    /// Orders by ``rawValue``.
    public static func < (left: CallID, right: CallID) -> Bool { left.rawValue < right.rawValue }

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }
}

/// A call is about to run; see ``CallObserver/callStarted(_:)``.
///
/// The redacted ``url``, ``host`` and ``port`` are worked out when first read (and then kept): an
/// observer that ignores the call without reading them (the tracing package over a no-op tracer)
/// costs the call almost nothing.
public struct CallStarted: Sendable {
    /// The call.
    public let callID: CallID
    /// Its method.
    public let method: HTTPMethod
    /// The request's URL, redacted (no user info; secret query values and path parts replaced).
    public var url: String { details.values.printedURL }
    /// The target's path template with its tokens unfilled (`/users/:id`): a name for the call that
    /// holds no path-part values, for span names (`GET /users/:id`) and metric labels.
    public let pathTemplate: String
    /// The URL's host (`server.address` in OpenTelemetry's terms).
    public var host: String { details.values.host }
    /// The URL's port, or the scheme's default (80, 443) when it names none (`server.port`).
    public var port: Int { details.values.port }
    /// When the call started; every ``CallMetrics`` offset counts from here.
    public let start: ContinuousClock.Instant
    /// The parts above that are worked out on demand.
    let details: Details

    /// The call's redactor, its URL as printed, host and port: built on first use, once. It holds
    /// the URL as sent, secrets included, so it reflects as nothing (see `customMirror`).
    final class Details: Sendable, CustomReflectable {
        var customMirror: Mirror { Mirror(self, children: [:]) }

        struct Values: Sendable {
            let redactor: Redactor
            let printedURL: String
            let host: String
            let port: Int
        }

        private let url: URL
        private let makeRedactor: @Sendable () -> Redactor
        private let built = LockedValue<Values?>(nil)

        init(url: URL, makeRedactor: @escaping @Sendable () -> Redactor) {
            self.url = url
            self.makeRedactor = makeRedactor
        }

        /// Whether the values were built (a test's view).
        var isBuilt: Bool { built.withLock { $0 != nil } }

        /// The values, built by the first caller (outside the lock; a racing second build is
        /// identical and dropped).
        var values: Values {
            if let values = built.withLock({ $0 }) { return values }
            let redactor = makeRedactor()
            let values = Values(
                redactor: redactor, printedURL: redactor.url(url), host: url.host ?? "",
                port: url.effectivePort)
            return built.withLock { kept in
                if let kept { return kept }
                kept = values
                return values
            }
        }
    }
}

/// What a call waited for before an attempt: admission (a server's pause, a concurrency slot, a
/// rate limit) or the retry policy's delay.
public struct AdmissionWait: Sendable, Hashable, CustomStringConvertible {
    /// The kind of wait.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String { case serverPause, concurrencySlot, rateLimit, retryDelay }
        private let base: Base
        /// A pause the server asked for with `Retry-After` on a 429 or 503, for every caller of the
        /// limiter (see ``RequestLimiter``).
        public static let serverPause = Kind(base: .serverPause)
        /// A concurrency slot (``RequestLimiter/maxConcurrentRequests``).
        public static let concurrencySlot = Kind(base: .concurrencySlot)
        /// A rate limit (``RequestLimiter/rateLimits``).
        public static let rateLimit = Kind(base: .rateLimit)
        /// The ``RetryPolicy``'s delay before a retry (its backoff, or the `Retry-After` it
        /// honours). Not admission proper; reported with the waits so every gap between attempts
        /// is named.
        public static let retryDelay = Kind(base: .retryDelay)
        /// `serverPause`, `concurrencySlot`, `rateLimit` or `retryDelay`.
        public var description: String { base.rawValue }
    }

    /// What the call waited for.
    public let kind: Kind
    /// Which attempt waited (see ``AttemptStarted/number``).
    public let attempt: Int
    /// When the wait began, from the call's start.
    public let start: Duration
    /// How long it lasted.
    public let duration: Duration

    /// `rateLimit 120 ms before attempt 1`.
    public var description: String { "\(kind) \(duration.formattedSeconds) before attempt \(attempt)" }
}

/// The call waited for admission; see ``CallObserver/admissionWaited(_:)``.
public struct AdmissionWaited: Sendable {
    /// The call.
    public let callID: CallID
    /// The wait.
    public let wait: AdmissionWait
}

/// Why an attempt was sent.
public struct AttemptReason: Hashable, Sendable, CustomStringConvertible {
    /// The kind of reason.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String { case first, retry, redirect, replay, reconnection, restart }
        private let base: Base
        /// The call's first request.
        public static let first = Kind(base: .first)
        /// The ``RetryPolicy`` sent the call again; ``AttemptReason/statusCode`` or
        /// ``AttemptReason/errorCode`` tells what it retried.
        public static let retry = Kind(base: .retry)
        /// A redirect was followed; ``AttemptReason/statusCode`` is the 3xx.
        public static let redirect = Kind(base: .redirect)
        /// Sent again inside one retry attempt: the ``Authentication``'s replay after a refresh
        /// (``AttemptReason/statusCode`` is the rejection, 401 by default), or an ``Interceptor``
        /// that called `next` again.
        public static let replay = Kind(base: .replay)
        /// An event stream reconnected (``Executor/events(reconnection:maximumEventSize:debug:)``):
        /// the previous connection ended (no code) or failed (``AttemptReason/errorCode``, with
        /// ``AttemptReason/statusCode`` for a retryable status such as 503).
        public static let reconnection = Kind(base: .reconnection)
        /// A resumed download started over without a range (the server answered 416 or could not
        /// continue the partial file; ``AttemptReason/statusCode``).
        public static let restart = Kind(base: .restart)
        /// `first`, `retry`, `redirect`, `replay`, `reconnection` or `restart`.
        public var description: String { base.rawValue }
    }

    /// The kind.
    public let kind: Kind
    /// The status of the response that caused this attempt, if a response did.
    public let statusCode: Int?
    /// The error that caused this attempt, if an error did (a retried timeout).
    public let errorCode: NetLayerError.Code?

    /// The call's first request.
    public static let first = AttemptReason(kind: .first, statusCode: nil, errorCode: nil)

    /// `retry after 503`, `redirect after 302`, `retry after timedOut`, `first`.
    public var description: String {
        if let statusCode { return "\(kind) after \(statusCode)" }
        if let errorCode { return "\(kind) after \(errorCode)" }
        return kind.description
    }
}

/// An attempt is about to be sent; see ``CallObserver/attemptStarted(_:headers:)``.
public struct AttemptStarted: Sendable {
    /// The call.
    public let callID: CallID
    /// Which attempt of the call this is, from 1: every request handed to the transport counts,
    /// retries, redirect hops, replays and reconnections included.
    public let number: Int
    /// Why it is sent.
    public let reason: AttemptReason
    /// Its method (a 303 turns a POST into a GET).
    public let method: HTTPMethod
    /// Its URL, redacted (no user info; secret query values and path parts replaced).
    public let url: String
    /// The URL's host.
    public let host: String
    /// The URL's port, or the scheme's default.
    public let port: Int
    /// Its header fields as they stand before the observer adds any, redacted (secret values
    /// replaced by the placeholder).
    public let headers: HeaderFields
    /// The exact length of the request body, 0 without one.
    public let bodyLength: Int64
    /// When it started (after admission), from the call's start.
    public let start: Duration

    /// How many times the call's request was sent before this attempt: `number - 1`
    /// (OpenTelemetry's `http.request.resend_count`, which counts redirects and retries alike).
    public var resendCount: Int { number - 1 }
}

/// An attempt's response head arrived; see ``CallObserver/headReceived(_:)``.
public struct HeadReceived: Sendable {
    /// The call.
    public let callID: CallID
    /// The attempt (see ``AttemptStarted/number``).
    public let attempt: Int
    /// The status code.
    public let statusCode: Int
    /// The response's header fields, redacted as debug output prints them.
    public let headers: HeaderFields
    /// The HTTP version, when the transport tells it (see ``ResponseHead/httpVersion``).
    public let httpVersion: String?
    /// From the attempt's start to its head.
    public let timeToFirstByte: Duration
}

/// How an attempt ended.
public struct AttemptEnd: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String { case completed, setAside, stopped, failed }
    private let base: Base
    /// The body was read to its end. A body the transport read whole before handing the head on
    /// (URLSession's one-call path) completes with its head, whatever NetLayer does with the
    /// response afterwards; so does a body NetLayer read to decide on a retry.
    public static let completed = AttemptEnd(base: .completed)
    /// NetLayer set the response aside before its body ended: a redirect followed, a retry, a
    /// replay after a credentials refresh, a download's restart, or an unacceptable response whose
    /// body was read for its error only up to a limit.
    public static let setAside = AttemptEnd(base: .setAside)
    /// The consumer stopped reading before the end (left a `stream()` loop, an event stream's end
    /// marker), or released the body unread.
    public static let stopped = AttemptEnd(base: .stopped)
    /// The attempt failed: before a head (connection, timeout, cancellation) or while its body
    /// arrived; see ``AttemptFinished/errorCode``.
    public static let failed = AttemptEnd(base: .failed)
    /// `completed`, `setAside`, `stopped` or `failed`.
    public var description: String { base.rawValue }
}

/// An attempt ended; see ``CallObserver/attemptFinished(_:)``.
public struct AttemptFinished: Sendable {
    /// The call.
    public let callID: CallID
    /// The attempt (see ``AttemptStarted/number``).
    public let attempt: Int
    /// How it ended.
    public let end: AttemptEnd
    /// Why it failed, for ``AttemptEnd/failed``; `nil` otherwise.
    public let errorCode: NetLayerError.Code?
    /// The status of its response, when a head arrived.
    public let statusCode: Int?
    /// The request body's length (sent whole once a head arrived; a failed attempt may have sent
    /// less).
    public let bytesSent: Int64
    /// Response body bytes received and handed on.
    public let bytesReceived: Int64
    /// From the attempt's start to its end.
    public let duration: Duration
}

/// A call ended; see ``CallObserver/callFinished(_:)``.
public struct CallFinished: Sendable {
    /// The call.
    public let callID: CallID
    /// The final response's status, when one arrived.
    public let statusCode: Int?
    /// Why the call failed; `nil` when it succeeded (a stream the consumer stopped early
    /// succeeded).
    public let errorCode: NetLayerError.Code?
    /// How many attempts were sent (see ``AttemptStarted/number``).
    public let attempts: Int
    /// From the call's start to its end.
    public let duration: Duration
    /// The call's whole timeline: the value ``Response/metrics`` and ``NetLayerError/metrics``
    /// carry.
    public let metrics: CallMetrics
}

extension CallStarted: CustomReflectable {
    /// The public fields only (the URL redacted): what `dump` and `print` show.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "callID": callID, "method": method, "url": url, "pathTemplate": pathTemplate, "host": host,
                "port": port, "start": start,
            ], displayStyle: .struct)
    }
}
