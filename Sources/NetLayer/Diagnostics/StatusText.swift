import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reason phrases for printing (the status line's own phrase is not exposed by URLSession).
enum StatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        }
    }
}

/// Bodies as printable text.
enum BodyText {
    /// UTF-8 text cut to `limit` characters (with the total length shown), or a byte count for
    /// binary data. `mask` runs on the whole text before it is cut, so a secret that straddles the
    /// cut is never half shown.
    static func preview(_ data: Data, limit: Int, mask: (String) -> String = { $0 }) -> String {
        if data.isEmpty { return "(empty)" }
        guard let whole = String(data: data, encoding: .utf8), isPrintable(whole) else {
            return "<\(data.count) bytes of binary data>"
        }
        let text = mask(whole)
        if text.count <= limit { return text }
        return String(text.prefix(limit)) + "… (\(data.count) bytes in all)"
    }

    /// A text body as one short line (an error's ``NetLayerError/description``): redacted as
    /// ``redacted(_:contentType:redactor:)`` does, cut to `limit` characters (then `…`) after
    /// redaction, so a secret is never half shown, and escaped (``PrintableText``). `nil` for an
    /// empty or binary body.
    static func line(_ data: Data, contentType: String?, redactor: Redactor, limit: Int) -> String? {
        guard !data.isEmpty, let whole = String(data: data, encoding: .utf8), isPrintable(whole) else {
            return nil
        }
        let text = redacted(whole, contentType: contentType, redactor: redactor)
        let limit = max(0, limit)
        return PrintableText.escaped(text.count <= limit ? text : String(text.prefix(limit)) + "…")
    }

    /// A body's text with the values of secret form fields (a form `Content-Type`) or JSON keys (a
    /// JSON `Content-Type`, or any text that starts like JSON) redacted by name, as debug output
    /// prints them, then every known secret masked.
    static func redacted(_ text: String, contentType: String?, redactor: Redactor) -> String {
        let redaction = redactor.redaction
        var printed = text
        if let contentType, MediaType.isForm(contentType) {
            printed = redaction.formText(text)
        } else if contentType.map(MediaType.isJSON) == true || looksLikeJSON(text),
            let json = redaction.json(Data(text.utf8))
        {
            printed = json
        }
        return redactor.mask(printed)
    }

    /// Whether `text` starts, after white space, with `{` or `[`.
    private static func looksLikeJSON(_ text: String) -> Bool {
        let first = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" || $0.value == 0x7F
        }
    }
}
