import Foundation
import NetLayer

/// The names and values this package emits, from OpenTelemetry's semantic conventions for HTTP
/// clients (version ``version``) and NetLayer's own additions (`netlayer.*`).
///
/// Use the constants to configure a metrics backend (bucket boundaries by metric name) or to query
/// spans in tests.
public enum HTTPClientConventions {
    /// The version of OpenTelemetry's semantic conventions followed: `1.26.0`. Every attribute and
    /// metric used that those conventions mark stable has been stable, unchanged, since `1.23.0`.
    public static let version = "1.26.0"

    /// Span attribute and metric dimension names.
    public enum Attribute {
        /// `http.request.method`: the method, or `_OTHER` for a method not in
        /// ``TelemetryObserver/Configuration/knownMethods``.
        public static let requestMethod = "http.request.method"
        /// `http.request.method_original`: the method as sent, when `http.request.method` is
        /// `_OTHER`.
        public static let requestMethodOriginal = "http.request.method_original"
        /// `http.request.resend_count`: how many times the call's request was sent before this
        /// attempt; set only when more than 0.
        public static let requestResendCount = "http.request.resend_count"
        /// `http.request.body.size`: the request body's length in bytes.
        public static let requestBodySize = "http.request.body.size"
        /// `http.response.status_code`: the response's status, when one arrived.
        public static let responseStatusCode = "http.response.status_code"
        /// `http.response.body.size`: the response body bytes received.
        public static let responseBodySize = "http.response.body.size"
        /// `server.address`: the URL's host.
        public static let serverAddress = "server.address"
        /// `server.port`: the URL's port, or the scheme's default.
        public static let serverPort = "server.port"
        /// `url.full`: the URL, redacted by NetLayer (no user info, secret query values and path
        /// parts replaced) and by this package (the query keys the conventions list).
        public static let urlFull = "url.full"
        /// `url.scheme`: `http` or `https`.
        public static let urlScheme = "url.scheme"
        /// `url.template`: the target's path template (`/users/:id`).
        public static let urlTemplate = "url.template"
        /// `error.type`: the class of error the attempt or call ended with.
        public static let errorType = "error.type"
        /// `network.protocol.version`: the HTTP version, when the transport tells it (`1.1`, `2`).
        public static let networkProtocolVersion = "network.protocol.version"

        /// `netlayer.attempt.reason`: why an attempt was sent: `first`, `retry`, `redirect`,
        /// `replay`, `reconnection` or `restart`.
        public static let attemptReason = "netlayer.attempt.reason"
        /// `netlayer.attempt.cause`: what caused a resend: a status code (`503`) or an error code
        /// (`timedOut`).
        public static let attemptCause = "netlayer.attempt.cause"
        /// `netlayer.call.attempts`: how many attempts a call sent.
        public static let callAttempts = "netlayer.call.attempts"
        /// `netlayer.admission.kind`: what a call waited for before an attempt: `server_pause`,
        /// `concurrency_slot`, `rate_limit`, or `retry_delay` (the retry policy's delay).
        public static let admissionKind = "netlayer.admission.kind"
        /// `netlayer.admission.attempt`: the attempt a wait came before.
        public static let admissionAttempt = "netlayer.admission.attempt"
        /// `netlayer.admission.duration`: how long a wait lasted, in seconds (a span event's
        /// attribute).
        public static let admissionDuration = "netlayer.admission.duration"
        /// `netlayer.retry.kind`: the kind of resend a retry metric counts: `retry`, `replay`,
        /// `reconnection` or `restart`.
        public static let retryKind = "netlayer.retry.kind"
    }

    /// Metric names.
    public enum Metric {
        /// `http.client.request.duration` (stable): a timer, exported as a histogram in seconds,
        /// one value per attempt, from the attempt's start to the end of its body. Configure your
        /// backend with ``requestDurationBuckets``.
        public static let requestDuration = "http.client.request.duration"
        /// `http.client.request.body.size`: a histogram in bytes, one value per attempt.
        public static let requestBodySize = "http.client.request.body.size"
        /// `http.client.response.body.size`: a histogram in bytes, one value per attempt that
        /// received a response head.
        public static let responseBodySize = "http.client.response.body.size"
        /// `http.client.active_requests`: attempts in flight (a meter).
        public static let activeRequests = "http.client.active_requests"
        /// `netlayer.client.retries`: a counter of attempts sent again for another reason than a
        /// redirect (dimension `netlayer.retry.kind`).
        public static let retries = "netlayer.client.retries"
        /// `netlayer.client.admission.wait.duration`: a timer of the waits before attempts (rate
        /// limit, concurrency slot, server pause, retry delay; dimension `netlayer.admission.kind`).
        public static let admissionWaitDuration = "netlayer.client.admission.wait.duration"
        /// `netlayer.client.call.duration`: a timer of whole calls, all attempts and waits
        /// included, from the call's start to its end.
        public static let callDuration = "netlayer.client.call.duration"
    }

    /// The span event added to a call's span for each wait for admission.
    public static let admissionWaitEvent = "netlayer.admission.wait"

    /// The bucket boundaries the conventions advise for `http.client.request.duration`, in
    /// seconds: `[0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]`.
    public static let requestDurationBucketSeconds: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]

    /// ``requestDurationBucketSeconds`` as durations, for backends configured with `Duration`s
    /// (swift-otel's `durationHistogramBuckets`).
    public static var requestDurationBuckets: [Duration] {
        requestDurationBucketSeconds.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
    }

    /// The methods the conventions call known: those of RFC 9110 and PATCH (RFC 5789). Others are
    /// reported as `_OTHER`.
    public static let standardMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
    ]

    /// The environment variable the conventions name for overriding the known methods: a
    /// comma-separated, case-sensitive list that replaces the default one.
    public static let knownMethodsVariable = "OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS"

    /// The known methods: ``knownMethodsVariable`` when it is set, else ``standardMethods``.
    public static var defaultKnownMethods: Set<String> {
        guard let list = ProcessInfo.processInfo.environment[knownMethodsVariable] else {
            return standardMethods
        }
        return Set(
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// The query keys whose values the conventions say to replace by `REDACTED` in `url.full`.
    public static let redactedQueryKeys: Set<String> = [
        "AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature",
    ]

    /// The value `error.type` takes for an attempt: the NetLayer error code when it failed, else
    /// the status code as text when it is 400 or more, else `nil` (success).
    public static func errorType(statusCode: Int?, errorCode: NetLayerError.Code?) -> String? {
        if let errorCode { return errorCode.description }
        if let statusCode, statusCode >= 400 { return String(statusCode) }
        return nil
    }

    /// The value `error.type` takes for a call: its error code, except that a call refused for its
    /// status (``NetLayerError/Code/unacceptableStatus``) reports the status code as text, as an
    /// attempt does; `nil` when the call succeeded.
    public static func callErrorType(statusCode: Int?, errorCode: NetLayerError.Code?) -> String? {
        guard let errorCode else { return nil }
        if errorCode == .unacceptableStatus, let statusCode { return String(statusCode) }
        return errorCode.description
    }

    /// `url.full` from NetLayer's redacted URL: the values of ``redactedQueryKeys`` replaced by
    /// `REDACTED`, the key kept. Standard-library string work only (Foundation's `contains` and
    /// `range(of:)` cost thousands of instructions a call on Linux).
    static func fullURL(_ redacted: String) -> String {
        guard let mark = redacted.firstIndex(of: "?") else { return redacted }
        let query = redacted[redacted.index(after: mark)...]
        var changed = false
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "=") else { return pair }
            let key = pair[..<equals]
            let name =
                key.firstIndex(of: "%") != nil
                ? (String(key).removingPercentEncoding ?? String(key)) : String(key)
            guard redactedQueryKeys.contains(name) else { return pair }
            changed = true
            return key + "=REDACTED"
        }
        guard changed else { return redacted }
        return redacted[...mark] + pairs.joined(separator: "&")
    }

    /// `http` or `https` (lowercased) from a URL's text, or `nil`.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].starts(with: "://") else { return nil }
        let scheme = url[..<colon]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return nil
        }
        return scheme.lowercased()
    }

    /// `server_pause`, `concurrency_slot`, `rate_limit` or `retry_delay`.
    static func admissionKind(_ kind: AdmissionWait.Kind) -> String {
        switch kind {
        case .serverPause: "server_pause"
        case .concurrencySlot: "concurrency_slot"
        case .rateLimit: "rate_limit"
        case .retryDelay: "retry_delay"
        default: "_OTHER"
        }
    }

    /// `first`, `retry`, `redirect`, `replay`, `reconnection`, `restart`.
    static func reasonName(_ kind: AttemptReason.Kind) -> String { kind.description }

    /// The status code or error code that caused an attempt, if any.
    static func cause(_ reason: AttemptReason) -> String? {
        if let statusCode = reason.statusCode { return String(statusCode) }
        return reason.errorCode?.description
    }
}
