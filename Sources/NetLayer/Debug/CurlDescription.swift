import Foundation

/// Renders a prepared request as a `curl` command line for a POSIX shell (bash for binary bodies).
enum CurlDescription {
    static func make(_ prepared: PreparedRequest, redaction: Redaction) -> String {
        var parts = ["curl"]
        switch prepared.method {
        case .get: break
        case .head: parts.append("--head")
        default: parts.append("-X \(prepared.method.rawValue)")
        }
        parts.append(quote(redaction.url(prepared.url)))
        for field in prepared.headers.sorted {
            parts.append("-H \(quote("\(field.name): \(redaction.value(field.value, for: field.name))"))")
        }
        if let body = prepared.body, !body.isEmpty {
            parts.append(bodyArgument(body, prepared: prepared, redaction: redaction))
        }
        return parts.joined(separator: " ")
    }

    private static func bodyArgument(_ body: Data, prepared: PreparedRequest, redaction: Redaction) -> String
    {
        var text: String?
        switch prepared.placement {
        case .form: text = redaction.formText(String(decoding: body, as: UTF8.self))
        case .json: text = redaction.json(body)
        case .query:
            if prepared.headers["Content-Type"].map(MediaType.isJSON) ?? false { text = redaction.json(body) }
        case .multipart: text = nil
        }
        if text == nil, let utf8 = String(data: body, encoding: .utf8), !utf8.unicodeScalars.contains("\0") {
            text = utf8
        }
        if let text { return "--data-binary \(quote(text))" }
        return "--data-binary @<(printf %s \(quote(body.base64EncodedString())) | base64 -d)"
    }

    /// Single-quotes a shell word: `it's` → `'it'\''s'`.
    static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
