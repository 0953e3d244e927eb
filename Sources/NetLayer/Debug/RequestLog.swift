import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints a request and its response in the design's format, with secrets redacted.
struct RequestLog {
    private let sink: LogSink
    private let redaction: Redaction
    private let encoding: EncodingOptions
    /// Longest body text printed before it is cut.
    static let bodyLimit = 1024
    private static let prefix = "[NetLayer]"

    init(_ options: ResourceOptions) {
        sink = options.log
        redaction = options.redaction
        encoding = options.encoding
    }

    func request(_ prepared: PreparedRequest) {
        let headers = prepared.headers.sorted.map { "\($0.name): \(redaction.value($0.value, for: $0.name))" }
        let params = redaction.formText(FormEncoder(options: encoding).encode(prepared.params))
        sink.block([
            "\(Self.prefix) → \(prepared.method) \(redaction.url(prepared.url))",
            "\(Self.prefix)   headers: \(headers.isEmpty ? "(none)" : headers.joined(separator: " · "))",
            "\(Self.prefix)   params: \(params.isEmpty ? "(none)" : params)",
            "\(Self.prefix)   body: \(Self.describeBody(prepared, redaction: redaction))",
            "\(Self.prefix)   multipart: \(prepared.placement == .multipart)",
        ])
    }

    func response(_ response: HTTPURLResponse, data: Data, duration: Duration) {
        let status = response.statusCode
        var lines = [
            "\(Self.prefix) ← \(status) \(StatusText.reason(status)) · \(Self.milliseconds(duration)) · \(data.count) bytes"
        ]
        if !data.isEmpty {
            let isJSON = (response.value(forHTTPHeaderField: "Content-Type")).map(MediaType.isJSON) ?? false
            let text =
                isJSON
                ? (redaction.json(data) ?? BodyText.preview(data, limit: Self.bodyLimit))
                : BodyText.preview(data, limit: Self.bodyLimit)
            lines.append("\(Self.prefix)   \(Self.cut(text, total: data.count))")
        }
        sink.block(lines)
    }

    func failure(_ prepared: PreparedRequest, error: NetLayerError, duration: Duration) {
        sink.block([
            "\(Self.prefix) ✕ \(prepared.method) \(redaction.url(prepared.url)) · \(error.message) · \(Self.milliseconds(duration))"
        ])
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = duration.seconds * 1000
        return "\((ms * 10).rounded() / 10) ms"
    }

    static func cut(_ text: String, total: Int) -> String {
        text.count <= bodyLimit ? text : String(text.prefix(bodyLimit)) + "… (\(total) bytes in all)"
    }

    /// The request body as printed: redacted form/JSON text, a multipart summary, text or a byte count.
    static func describeBody(_ prepared: PreparedRequest, redaction: Redaction) -> String {
        guard let body = prepared.body, !body.isEmpty else { return "(none)" }
        let size = "(\(body.count) bytes)"
        switch prepared.placement {
        case .form:
            return
                "\(cut(redaction.formText(String(decoding: body, as: UTF8.self)), total: body.count)) \(size)"
        case .multipart:
            let fields = FormEncoder(options: .default).pairs(prepared.params).map {
                "\($0.name)=\(redaction.value($0.value, for: $0.name))"
            }
            let files = FormEncoder.sortedKeys(prepared.files).compactMap { name in
                prepared.files[name].map { "\(name): \($0.filename) (\($0.contentType))" }
            }
            return
                "fields [\(fields.joined(separator: ", "))] files [\(files.joined(separator: ", "))] \(size)"
        case .json, .query:
            let isJSON =
                prepared.headers["Content-Type"].map(MediaType.isJSON) ?? (prepared.placement == .json)
            if isJSON, let text = redaction.json(body) { return "\(cut(text, total: body.count)) \(size)" }
            let preview = BodyText.preview(body, limit: bodyLimit)
            return preview.hasPrefix("<") ? preview : "\(preview) \(size)"
        }
    }
}
