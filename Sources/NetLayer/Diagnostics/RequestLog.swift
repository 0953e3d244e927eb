import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints a request and its response in the design's format, with secrets redacted.
///
/// The redactor is built for each block from the headers as sent so far: an interceptor's or the
/// authenticator's credentials, and a replay's refreshed ones, are secrets from the moment they
/// go out, though the log was made before.
///
/// Every attempt the transport makes shows: a retry's `↻ retry` line, a replay's `↻ replay` line,
/// a redirect's `↪` line, each naming the answer it follows. A wait for admission is a line of its
/// own (`⏸ waited 1000.0 ms for the rate limit (5 per 1 s)`), so a response line's time is the
/// exchange alone: from the moment its request went to the transport until the head (streamed
/// calls) or the last byte (collected ones). A failure line's time is the whole call's.
struct RequestLog: Sendable {
    private let sink: LogSink
    private let prepared: SharedPreparedRequest
    private let record: AttemptRecord
    /// When the call started: the failure line's time counts from here.
    private let start: ContinuousClock.Instant
    /// Longest body text printed before it is cut.
    static let bodyLimit = 1024
    private static let prefix = "[NetLayer]"

    init(
        _ prepared: SharedPreparedRequest, record: AttemptRecord, sink: LogSink,
        start: ContinuousClock.Instant
    ) {
        self.sink = sink
        self.prepared = prepared
        self.record = record
        self.start = start
    }

    /// The last exchange's time so far: since its request went to the transport (since the call
    /// started when none did).
    private var exchangeDuration: Duration { .now - (record.sentAt ?? start) }

    /// The call's redactor now: the prepared request's secrets and those of every header block sent.
    private var redactor: Redactor {
        var sent = prepared.value
        sent.sentHeaderBlocks = record.sentBlocks
        return Redactor(sent, pathParts: prepared.pathParts, redaction: prepared.resource.options.redaction)
    }

    /// The request: its line, its headers (when it has any) and its body (when it has one). Params
    /// are not printed on their own: they are in the URL's query or in the body, as sent.
    func request(_ prepared: PreparedRequest) {
        let redactor = redactor
        var lines = ["\(Self.prefix) → \(prepared.method) \(redactor.url(prepared.url))"]
        if let headers = headerLine(prepared.headers.sorted, redactor: redactor) { lines.append(headers) }
        if let body = Self.describeBody(prepared, redactor: redactor) {
            lines.append("\(Self.prefix)   body: \(body)")
        }
        sink.block(lines)
    }

    /// `  headers: A: 1 · B: <redacted>`, or nil when there are none. Names are masked too.
    private func headerLine(_ fields: [HeaderField], redactor: Redactor) -> String? {
        guard !fields.isEmpty else { return nil }
        return "\(Self.prefix)   headers: \(redactor.headerFields(fields))"
    }

    /// A redirect NetLayer followed.
    func redirect(_ redirect: Redirect) {
        let redactor = redactor
        sink.block([
            "\(Self.prefix) ↪ \(redirect.statusCode) \(StatusText.reason(redirect.statusCode)) → \(redirect.method) \(redactor.url(redirect.to))"
        ])
    }

    /// Waits for admission before a request went out:
    /// `⏸ waited 1000.0 ms for the rate limit (5 per 1 s)`, one line per reason.
    func waited(_ waits: [RequestLimiter.Wait], limiter: RequestLimiter) {
        let lines = waits.map { wait in
            let what: String
            switch wait.reason {
            case .pause: what = "the pause a server asked for (Retry-After)"
            case .slot: what = "a concurrency slot (\(limiter.maxConcurrentRequests ?? 0) at once)"
            case .rateLimit:
                var limits = limiter.rateLimits.map(\.description)
                if limiter.safetyMargin > .zero { limits.append("margin \(Self.span(limiter.safetyMargin))") }
                what = "the rate limit (\(limits.joined(separator: "; ")))"
            }
            return "\(Self.prefix) ⏸ waited \(Self.milliseconds(wait.duration)) for \(what)"
        }
        sink.block(lines)
    }

    /// A stage sends the call again after an answer it did not return:
    /// `↻ replay after 401 Unauthorized: the authenticator refreshed the credentials`, or
    /// `↻ sent again by interceptor Name after 503 Service Unavailable`.
    /// - Parameters:
    ///   - action: `replay`, `sent again by interceptor Name`.
    ///   - outcome: The answer to the attempt before: its status, or its error.
    ///   - reason: Why, when the stage knows; appended after a colon.
    func resent(_ action: String, after outcome: Result<Int, NetLayerError>, reason: String?) {
        let cause: String
        switch outcome {
        case .success(let status): cause = "\(status) \(StatusText.reason(status))"
        case .failure(let error): cause = redactor.mask(error.rawMessage)
        }
        sink.block(["\(Self.prefix) ↻ \(action) after \(cause)\(reason.map { ": \($0)" } ?? "")"])
    }

    /// A retry about to wait: `↻ retry 2/4 in 300.0 ms after 503 Service Unavailable`.
    func retry(
        attempt: Int, of maximum: Int, after outcome: Result<TransportResponse, NetLayerError>,
        delay: Duration
    ) {
        let redactor = redactor
        let cause: String
        switch outcome {
        case .success(let response):
            cause = "\(response.head.statusCode) \(StatusText.reason(response.head.statusCode))"
        case .failure(let error): cause = redactor.mask(error.rawMessage)
        }
        sink.block([
            "\(Self.prefix) ↻ retry \(attempt)/\(maximum) in \(Self.milliseconds(delay)) after \(cause)"
        ])
    }

    /// The response with its body, read whole; its time is the exchange's, to the last byte.
    func response(_ response: ResponseHead, data: Data) {
        let redactor = redactor
        let status = response.statusCode
        let cache = CacheStatus(fieldValues: response.headerFields.values(for: "Cache-Status")).map {
            " · cache \($0)"
        }
        var lines = [
            "\(Self.prefix) ← \(status) \(StatusText.reason(status)) · \(Self.milliseconds(exchangeDuration)) · \(data.count) bytes\(cache ?? "")"
        ]
        if let headers = headerLine(response.headerFields.sorted, redactor: redactor) {
            lines.append(headers)
        }
        if !data.isEmpty {
            let isJSON = response.headerFields["Content-Type"].map(MediaType.isJSON) ?? false
            let text =
                (isJSON ? redactor.redaction.json(data).map(redactor.mask) : nil)
                ?? BodyText.preview(data, limit: Self.bodyLimit, mask: redactor.mask)
            lines.append("\(Self.prefix)   \(Self.cut(text, total: data.count))")
        }
        sink.block(lines)
    }

    /// The head of a response whose body is streamed to the caller (not printed); its time is the
    /// exchange's, to the head.
    func streamed(_ response: ResponseHead) {
        let redactor = redactor
        let status = response.statusCode
        let size = response.contentLength.map { "\($0) bytes" } ?? "length unknown"
        var lines = [
            "\(Self.prefix) ← \(status) \(StatusText.reason(status)) · \(Self.milliseconds(exchangeDuration)) · streamed, \(size)"
        ]
        if let headers = headerLine(response.headerFields.sorted, redactor: redactor) {
            lines.append(headers)
        }
        sink.block(lines)
    }

    /// The call failed; its time is the whole call's.
    func failure(_ prepared: PreparedRequest, error: NetLayerError) {
        let redactor = redactor
        sink.block([
            "\(Self.prefix) ✕ \(prepared.method) \(redactor.url(prepared.url)) · \(redactor.mask(error.rawMessage)) · \(Self.milliseconds(.now - start))"
        ])
    }

    /// `2.0 ms`, `1003.7 ms`: every time debug output prints, in milliseconds to a tenth.
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.seconds * 10_000).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { return "\(duration.seconds) s" }
        let whole = Int64(tenths)
        let sign = whole < 0 ? "-" : ""
        return "\(sign)\(abs(whole) / 10).\(abs(whole) % 10) ms"
    }

    /// A span as a person writes it: `1 s`, `300 ms`, `1.5 s`, `1 min`, `1 h`, `2.5 ms`.
    static func span(_ duration: Duration) -> String {
        let seconds = duration.seconds
        func trimmed(_ value: Double) -> String {
            let rounded = (value * 1000).rounded() / 1000
            if rounded == rounded.rounded(), abs(rounded) < 1e15 { return "\(Int64(rounded))" }
            return "\(rounded)"
        }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 {
            return "\(trimmed(seconds / 3600)) h"
        }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 {
            return "\(trimmed(seconds / 60)) min"
        }
        if seconds < 1 { return "\(trimmed(seconds * 1000)) ms" }
        return "\(trimmed(seconds)) s"
    }

    static func cut(_ text: String, total: Int) -> String {
        text.count <= bodyLimit ? text : String(text.prefix(bodyLimit)) + "… (\(total) bytes in all)"
    }

    /// The request body as printed: redacted form/JSON text, a multipart summary, text or a byte
    /// count; nil when there is none.
    static func describeBody(_ prepared: PreparedRequest, redactor: Redactor) -> String? {
        guard let length = prepared.request.body?.length, length > 0 else { return nil }
        let size = "(\(length) bytes)"
        let body = prepared.body ?? Data()
        let redaction = redactor.redaction
        switch prepared.placement {
        case .multipart:
            // Each part as a person reads a form: `name: value` for fields, `name: file (type)` for
            // files; never as a query string, which is not what was sent.
            let fields = prepared.multipartFields.map {
                "\($0.name): \(redaction.isSecret($0.name) ? redaction.placeholder : redactor.mask($0.value))"
            }
            let files = FormEncoder.sortedKeys(prepared.files).compactMap { name in
                prepared.files[name].map { "\(name): file \($0.filename) (\($0.contentType))" }
            }
            return redactor.mask((["multipart \(size)"] + fields + files).joined(separator: " · "))
        case .form, .json, .query:
            guard prepared.body != nil else { return "<\(length) bytes from a file>" }
            if let text = redactedText(prepared, redaction: redaction) {
                return "\(cut(redactor.mask(text), total: body.count)) \(size)"
            }
            let preview = BodyText.preview(body, limit: bodyLimit, mask: redactor.mask)
            return preview.hasPrefix("<") ? preview : "\(preview) \(size)"
        }
    }

    /// A form or JSON body (params or given as data) with its secret fields redacted by name; nil
    /// for other bodies.
    static func redactedText(_ prepared: PreparedRequest, redaction: Redaction) -> String? {
        guard let body = prepared.body else { return nil }
        let type = prepared.headers["Content-Type"]
        if prepared.placement == .form || type.map(MediaType.isForm) == true {
            return redaction.formText(String(decoding: body, as: UTF8.self))
        }
        if prepared.placement == .json || type.map(MediaType.isJSON) == true {
            return redaction.json(body)
        }
        return nil
    }
}
