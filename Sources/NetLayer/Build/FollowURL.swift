import Foundation

/// Absolute URLs: refusing them where a path is expected, and checking one a call follows
/// (a `Link: rel="next"` target) against the resource's origin.
enum FollowURL {
    /// Whether `path` is an absolute URL (`https://…`, `http://…`, any `scheme://…`) or a
    /// network-path reference (`//host/…`), which joined after a domain would make a URL such as
    /// `https://api.example.com/https://api.example.com/…`.
    static func isAbsolute(_ path: String) -> Bool {
        // Most paths have neither `//` at the start nor `://` anywhere: no character walk then.
        if !mayBeAbsolute(path) { return false }
        if path.hasPrefix("//") { return true }
        guard let colon = path.firstIndex(of: ":"), path[colon...].hasPrefix("://") else { return false }
        let scheme = path[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// Whether the bytes start with `//` or hold `://` (which every absolute path does).
    private static func mayBeAbsolute(_ path: String) -> Bool {
        path.withUTF8Bytes { bytes in
            let slash = UInt8(ascii: "/")
            if bytes.count >= 2 && bytes[0] == slash && bytes[1] == slash { return true }
            var index = 2
            while index < bytes.count {
                if bytes[index] == slash && bytes[index - 1] == slash && bytes[index - 2] == UInt8(ascii: ":")
                {
                    return true
                }
                index += 1
            }
            return false
        }
    }

    /// Throws when `path` (the target's `path` or a call's `subpath`) is an absolute URL.
    static func refuseAbsolute(_ path: String, part: String) throws(NetLayerError) {
        guard isAbsolute(path) else { return }
        throw .invalidURL(
            part: part, value: origin(of: URL(string: path)) ?? "//…",
            reason:
                "it is an absolute URL, not a path; follow a URL of this resource's host with makeExecutor(url:)"
        )
    }

    /// `url` ready to send: same scheme, host and port as `base`, no user info, no fragment, and
    /// `query` (already encoded) appended when given.
    /// - Throws: ``NetLayerError/Code/invalidURL`` naming why; nothing is sent then.
    static func url(_ url: URL, base: String, query: String) throws(NetLayerError) -> URL {
        guard let baseURL = URL(string: base) else {
            throw .invalidURL(part: "url", value: base, reason: "the resource's base URL does not parse")
        }
        let shown = origin(of: url) ?? "(no host)"
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidURL(part: "url", value: shown, reason: "it is not an http or https URL")
        }
        if url.user != nil || url.password != nil {
            throw .invalidURL(
                part: "url", value: shown,
                reason: "user info (user:password@) is not allowed; send credentials in a header")
        }
        guard Origin.same(url, baseURL) else {
            throw .invalidURL(
                part: "url", value: shown,
                reason:
                    "it is not on this resource's origin \(origin(of: baseURL) ?? base) (scheme, host and port must match; use a resource for that host)"
            )
        }
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        if !query.isEmpty { text += (url.query == nil ? "?" : "&") + query }
        if let bad = PercentEncoding.firstInvalidURLCharacter(in: text) {
            throw .invalidURL(part: "url", value: shown, reason: "it contains \(bad)")
        }
        guard let result = URL(string: text) else {
            throw .invalidURL(
                part: "url", value: shown, reason: "it does not form a valid URL with the query")
        }
        return result
    }

    /// `scheme://host[:port]` (see ``Origin/description``), nothing that could be secret (no
    /// path, query or user info).
    static func origin(of url: URL?) -> String? {
        url.flatMap(Origin.init).map(\.description)
    }
}
