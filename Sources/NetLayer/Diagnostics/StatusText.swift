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

    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" || $0.value == 0x7F
        }
    }
}
