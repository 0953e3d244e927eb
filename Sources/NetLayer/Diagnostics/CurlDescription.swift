import Foundation

/// Renders a prepared request as a `curl` command line for a POSIX shell (bash for binary bodies and
/// for words holding control characters, which are written as `$'\x1b'` escapes), redacted like
/// debug output.
enum CurlDescription {
    static func make(_ prepared: PreparedRequest, redactor: Redactor) -> String {
        var parts = ["curl"]
        switch prepared.method {
        case .get: break
        case .head: parts.append("--head")
        default: parts.append("-X \(quote(prepared.method.rawValue))")
        }
        parts.append(quote(redactor.url(prepared.url)))
        for field in prepared.headers.sorted {
            // curl writes its own multipart boundary, so ours would be wrong.
            if prepared.placement == .multipart && field.name.caseInsensitiveEquals("Content-Type") {
                continue
            }
            parts.append(
                "-H \(quote("\(field.name): \(redactor.headerValue(field.value, for: field.name))"))")
        }
        if prepared.placement == .multipart {
            parts += multipartArguments(prepared, redactor: redactor)
        } else if let body = prepared.body, !body.isEmpty {
            parts.append(bodyArgument(body, prepared: prepared, redactor: redactor))
        }
        return parts.joined(separator: " ")
    }

    /// `--form-string` for fields (no `@`/`<` file syntax), `-F name=@file` for file parts.
    private static func multipartArguments(_ prepared: PreparedRequest, redactor: Redactor) -> [String] {
        let redaction = redactor.redaction
        var arguments: [String] = []
        for field in prepared.multipartFields {
            let value = redaction.isSecret(field.name) ? redaction.placeholder : redactor.mask(field.value)
            arguments.append("--form-string \(quote("\(field.name)=\(value)"))")
        }
        for name in FormEncoder.sortedKeys(prepared.files) {
            guard let file = prepared.files[name] else { continue }
            let source: String
            switch file.source {
            case .file(let url): source = url.path
            case .data(let data): source = "<(printf %s \(data.base64EncodedString()) | base64 -d)"
            }
            // curl's own `;filename=` syntax reads `"` and `\` inside double quotes as escapes.
            let filename = file.filename.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            let spec = "\(name)=@\(source);filename=\"\(filename)\";type=\(file.contentType)"
            if case .data = file.source {
                // Process substitution must stay outside single quotes.
                let parts = spec.components(separatedBy: source)
                arguments.append(
                    "-F \(quote(parts[0]))\(source)\(quote(parts.dropFirst().joined(separator: source)))")
            } else {
                arguments.append("-F \(quote(spec))")
            }
        }
        return arguments
    }

    private static func bodyArgument(_ body: Data, prepared: PreparedRequest, redactor: Redactor) -> String {
        var text = RequestLog.redactedText(prepared, redaction: redactor.redaction)
        if text == nil, let utf8 = String(data: body, encoding: .utf8), !utf8.unicodeScalars.contains("\0") {
            text = utf8
        }
        if let text { return "--data-binary \(quote(redactor.mask(text)))" }
        return "--data-binary @<(printf %s \(quote(body.base64EncodedString())) | base64 -d)"
    }

    /// Quotes a shell word: `it's` → `'it'\''s'`, and control characters as escapes (see
    /// ``PrintableText/shellQuoted(_:)``). Every word of the command passes here, after redaction.
    static func quote(_ word: String) -> String {
        PrintableText.shellQuoted(word)
    }
}
