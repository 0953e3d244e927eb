import Foundation

/// The origin of a URL (RFC 6454 §4, RFC 9110 §4.3.1): its scheme, host and port, the port being
/// the scheme's default when the URL names none. Two URLs are on the same origin when all three
/// match; scheme and host compare case-insensitively, and a user name, password, path, query or
/// fragment play no part.
///
/// The one place NetLayer decides "same origin": whether a followed URL belongs to the resource
/// (``FollowURL``), whether a redirect keeps the credentials (``RedirectRule``), and which host
/// has challenged before (``URLSessionTransport``).
struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower-cased (`https`).
    let scheme: String
    /// The host, lower-cased, as Foundation reads it (percent-decoding and IDNA done); an IPv6
    /// literal without its brackets (`::1`).
    let host: String
    /// The port the URL names, else the scheme's default (``defaultPort(forScheme:)``); `nil` for
    /// a scheme without a known default and no port in the URL.
    let port: Int?

    /// The origin of `url`; `nil` when it has no scheme or no host (`mailto:`, `file:///`, a
    /// relative reference), which has no origin to share with any other URL.
    init?(_ url: URL) {
        guard let scheme = url.scheme, !scheme.isEmpty, let host = url.host, !host.isEmpty else {
            return nil
        }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// An origin from its parts: `scheme` and `host` are lower-cased, brackets around an IPv6
    /// `host` removed, and a `nil` port becomes the scheme's default.
    init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme.lowercased()
        var host = Substring(host)
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.host = host.lowercased()
        self.port = port ?? Self.defaultPort(forScheme: self.scheme)
    }

    /// The port a URL of `scheme` uses when it names none: 80 for `http`, 443 for `https`
    /// (RFC 9110 §4.2); `nil` for any other scheme. Case-insensitive.
    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// Whether `lhs` and `rhs` are on one origin. `false` when either has none: a URL without a
    /// host shares its origin with nothing, not even with another such URL.
    static func same(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let origin = Origin(lhs) else { return false }
        return origin == Origin(rhs)
    }

    /// `scheme://host[:port]` (RFC 6454 §6.2): an IPv6 host in brackets, the port left out when it
    /// is the scheme's default. Nothing that could be secret: no user info, path or query.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        guard let port, port != Self.defaultPort(forScheme: scheme) else { return "\(scheme)://\(shownHost)" }
        return "\(scheme)://\(shownHost):\(port)"
    }
}
