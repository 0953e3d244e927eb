import Foundation

/// The scheme a resource talks.
public enum URLScheme: String, Sendable, Hashable {
    /// Plain HTTP; meant for loopback and test services.
    case http
    /// HTTP over TLS. The default.
    case https
}

/// Joins `{scheme}://{domain}[/{version}]{path}` with exactly one `/` at each join.
enum URLBuilder {
    /// The part before the target path: scheme, domain and version, validated once per resource.
    static func base(scheme: URLScheme, domain: String, version: String?) throws(NetLayerError) -> String {
        var host = Substring(domain)
        while host.last == "/" { host.removeLast() }
        if host.isEmpty { throw .invalidURL(part: "domain", value: domain, reason: "it is empty") }
        if host.contains("://") {
            throw .invalidURL(
                part: "domain", value: domain,
                reason:
                    "it includes a scheme; pass the scheme as `protocol:` and the host alone as the domain")
        }
        if host.first == "/" {
            throw .invalidURL(part: "domain", value: domain, reason: "it starts with '/'")
        }
        if host.contains("?") || host.contains("#") {
            throw .invalidURL(part: "domain", value: domain, reason: "it contains '?' or '#'")
        }
        if host.contains("@") {
            // The value is not echoed: user info is usually a password.
            throw .invalidURL(
                part: "domain", value: "<user info>@…",
                reason: "user info (user:password@) is not allowed; send credentials in a header")
        }
        if let bad = PercentEncoding.firstInvalidURLCharacter(in: String(host)) {
            throw .invalidURL(part: "domain", value: domain, reason: "it contains \(bad)")
        }
        try checkAuthority(host.prefix(while: { $0 != "/" }), domain: domain)
        var result = "\(scheme.rawValue)://\(host)"
        if let version {
            let trimmed = version.trimmingSlashes()
            if !trimmed.isEmpty {
                if let bad = PercentEncoding.firstInvalidURLCharacter(in: trimmed)
                    ?? (trimmed.contains("?") ? "'?'" : nil)
                {
                    throw .invalidURL(part: "version", value: version, reason: "it contains \(bad)")
                }
                result += "/" + trimmed
            }
        }
        guard let url = URL(string: result), url.host != nil else {
            throw .invalidURL(part: "domain", value: domain, reason: "it does not form a URL with a host")
        }
        return result
    }

    /// Checks `host[:port]` (or `[v6]:port`): a port must be 1–65535 digits; no empty host or port.
    private static func checkAuthority(_ authority: Substring, domain: String) throws(NetLayerError) {
        var hostPart = authority
        var port: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidURL(
                    part: "domain", value: domain, reason: "its IPv6 address has no closing ']'")
            }
            hostPart = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else {
                    throw .invalidURL(part: "domain", value: domain, reason: "text follows the IPv6 address")
                }
                port = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        let bracketed = hostPart.first == "["
        let inner = bracketed ? hostPart.dropFirst().dropLast() : hostPart
        if inner.isEmpty || inner.contains("[") || inner.contains("]") {
            throw .invalidURL(part: "domain", value: domain, reason: "it has no usable host")
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(port), (1...65535).contains(number)
            else {
                throw .invalidURL(
                    part: "domain", value: domain,
                    reason: "its port \"\(port)\" is not a number from 1 to 65535")
            }
        }
    }

    /// Appends a filled path (which may carry its own `?query`) and extra encoded query text.
    static func url(base: String, path: String, query: String) throws(NetLayerError) -> URL {
        var pathPart = Substring(path)
        var templateQuery: Substring?
        if let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) {
            pathPart = path[..<mark]
            templateQuery = path[path.utf8.index(after: mark)...]
        }
        if let bad = PercentEncoding.firstInvalidURLCharacter(in: pathPart)
            ?? (pathPart.utf8.contains(UInt8(ascii: "#")) ? "'#'" : nil)
        {
            throw .invalidURL(part: "path", value: path, reason: "it contains \(bad)")
        }
        if let templateQuery, let bad = PercentEncoding.firstInvalidURLCharacter(in: templateQuery) {
            throw .invalidURL(part: "path", value: path, reason: "its query contains \(bad)")
        }
        var result = base
        result.reserveCapacity(base.utf8.count + path.utf8.count + query.utf8.count + 2)
        let leadingTrimmed = pathPart.drop(while: { $0 == "/" })
        if !leadingTrimmed.isEmpty {
            result += "/"
            result += leadingTrimmed
        } else if !pathPart.isEmpty {
            result += "/"
        }
        let fixed = templateQuery.flatMap { $0.isEmpty ? nil : $0 }
        if let fixed {
            result += "?"
            result += fixed
            if !query.isEmpty { result += "&" + query }
        } else if !query.isEmpty {
            result += "?"
            result += query
        }
        guard let url = URL(string: result) else {
            throw .invalidURL(
                part: "path", value: path,
                reason: "the URL it joins into is not valid (query not shown: it may hold secrets)")
        }
        return url
    }

    /// Joins a target path and a call's sub-path with one `/`.
    static func join(_ path: String, _ subpath: String) -> String {
        if subpath.isEmpty { return path }
        var head = Substring(path)
        while head.last == "/" { head.removeLast() }
        return head + "/" + subpath.drop(while: { $0 == "/" })
    }
}

extension String {
    func trimmingSlashes() -> String {
        var text = Substring(self)
        while text.first == "/" { text.removeFirst() }
        while text.last == "/" { text.removeLast() }
        return String(text)
    }
}
