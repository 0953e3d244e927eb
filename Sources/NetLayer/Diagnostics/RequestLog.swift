import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints a request and its response in the design's format, with secrets redacted.
///
/// The redactor is built for each block from the headers as sent so far: an interceptor's or the
/// authenticator's credentials, and a replay's refreshed ones, are secrets from the moment they
/// go out, though the log was made before.
struct RequestLog: Sendable {
    private let sink: LogSink
    private let prepared: SharedPreparedRequest
    private let record: AttemptRecord
    /// Longest body text printed before it is cut.
    static let bodyLimit = 1024
    private static let prefix = "[NetLayer]"

    init(_ prepared: SharedPreparedRequest, record: AttemptRecord, sink: LogSink) {
        self.sink = sink
        self.prepared = prepared
        self.record = record
    }

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

    /// A retry about to wait: `↻ retry 2/4 in 0.3 s after 503 Service Unavailable`.
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

    func response(_ response: ResponseHead, data: Data, duration: Duration) {
        let redactor = redactor
        let status = response.statusCode
        var lines = [
            "\(Self.prefix) ← \(status) \(StatusText.reason(status)) · \(Self.milliseconds(duration)) · \(data.count) bytes"
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

    /// The head of a response whose body is streamed to the caller (not printed).
    func streamed(_ response: ResponseHead, duration: Duration) {
        let redactor = redactor
        let status = response.statusCode
        let size = response.contentLength.map { "\($0) bytes" } ?? "length unknown"
        var lines = [
            "\(Self.prefix) ← \(status) \(StatusText.reason(status)) · \(Self.milliseconds(duration)) · streamed, \(size)"
        ]
        if let headers = headerLine(response.headerFields.sorted, redactor: redactor) {
            lines.append(headers)
        }
        sink.block(lines)
    }

    func failure(_ prepared: PreparedRequest, error: NetLayerError, duration: Duration) {
        let redactor = redactor
        sink.block([
            "\(Self.prefix) ✕ \(prepared.method) \(redactor.url(prepared.url)) · \(redactor.mask(error.rawMessage)) · \(Self.milliseconds(duration))"
        ])
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = duration.seconds * 1000
        return "\((ms * 10).rounded() / 10) ms"
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
