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
    /// - Parameter cache: Where a URL already parsed from the same text is taken from.
    static func url(base: String, path: String, query: String, cache: ParsedURLs? = nil) throws(NetLayerError)
        -> URL
    {
        try url(base: base, path: path, query: RawQuery(text: query), cache: cache)
    }

    /// Appends a filled path (which may carry its own `?query`) and params as query pairs.
    /// - Parameter params: Entries sorted by key (see ``FormEncoder/sortedEntries(_:)``).
    static func url(
        base: String, path: String, params: FormEncoder.Entries, form: FormEncoder, cache: ParsedURLs? = nil
    ) throws(NetLayerError) -> URL {
        try url(base: base, path: path, query: PairsQuery(entries: params, form: form), cache: cache)
    }

    private struct PathProblem: Error {
        let reason: String
    }

    /// Query text after the path.
    private protocol Query {
        /// About how many bytes the query takes (a guess for the buffer; more is handled).
        var estimatedCount: Int { get }
        /// Appends the query, if any, starting with `separator` (`?`, or `&` after a query
        /// written in the path).
        func append<Sink: ByteSink>(to sink: inout Sink, separator: UInt8)
    }

    private struct RawQuery: Query {
        let text: String
        var estimatedCount: Int { text.utf8.count + 1 }
        func append<Sink: ByteSink>(to sink: inout Sink, separator: UInt8) {
            if text.isEmpty { return }
            sink.append(separator)
            sink.append(text)
        }
    }

    private struct PairsQuery: Query {
        let entries: FormEncoder.Entries
        let form: FormEncoder
        var estimatedCount: Int {
            // Room for every value byte escaped; arrays and dictionaries guessed per item.
            var count = 0
            for entry in entries {
                switch entry.value {
                case .string(let text), .number(let text):
                    count += entry.key.utf8.count + 3 * text.utf8.count + 2
                case .array(let items): count += items.count * 2 * (entry.key.utf8.count + 24)
                case .dictionary(let items): count += items.count * 2 * (entry.key.utf8.count + 32)
                case .bool, .null: count += entry.key.utf8.count + 7
                }
            }
            return count
        }
        func append<Sink: ByteSink>(to sink: inout Sink, separator: UInt8) {
            form.append(sorted: entries, to: &sink, first: separator)
        }
    }

    /// The URL text is written in one pass into a temporary buffer (on the stack when small), and
    /// parsed once.
    private static func url<Q: Query>(base: String, path: String, query: Q, cache: ParsedURLs?)
        throws(NetLayerError) -> URL
    {
        // The path's bytes are checked and copied in place. A checked path holds only URL
        // characters (ASCII), so walking bytes equals walking characters.
        let assembled = path.withUTF8Bytes { path -> Result<String, PathProblem> in
            let mark = path.firstIndex(of: UInt8(ascii: "?"))
            let pathPart = UnsafeBufferPointer(rebasing: path[..<(mark ?? path.count)])
            // `#` is not a URL character: it is named like any other.
            if let bad = PercentEncoding.firstInvalidURLCharacter(in: pathPart) {
                return .failure(PathProblem(reason: "it contains \(bad)"))
            }
            let templateQuery = mark.map { UnsafeBufferPointer(rebasing: path[($0 + 1)...]) }
            if let templateQuery, let bad = PercentEncoding.firstInvalidURLCharacter(in: templateQuery) {
                return .failure(PathProblem(reason: "its query contains \(bad)"))
            }
            let slashes = pathPart.prefix { $0 == UInt8(ascii: "/") }.count
            let trimmedPath = UnsafeBufferPointer(rebasing: pathPart[slashes...])
            func write<Sink: ByteSink>(to sink: inout Sink) {
                sink.append(base)
                if !pathPart.isEmpty {
                    sink.append(UInt8(ascii: "/"))
                    sink.append(trimmedPath)
                }
                if let templateQuery, !templateQuery.isEmpty {
                    sink.append(UInt8(ascii: "?"))
                    sink.append(templateQuery)
                    query.append(to: &sink, separator: UInt8(ascii: "&"))
                } else {
                    query.append(to: &sink, separator: UInt8(ascii: "?"))
                }
            }
            let estimate = base.utf8.count + path.count + query.estimatedCount + 64
            let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: estimate) {
                buffer -> String? in
                var writer = ByteWriter(buffer)
                write(to: &writer)
                if writer.overflowed { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<writer.count]), as: UTF8.self)
            }
            if let written { return .success(written) }
            // More than estimated (many escaped bytes): into a growing array instead.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(estimate * 2)
            write(to: &bytes)
            return .success(String(decoding: bytes, as: UTF8.self))
        }
        let text: String
        switch assembled {
        case .success(let assembled): text = assembled
        case .failure(let problem): throw .invalidURL(part: "path", value: path, reason: problem.reason)
        }
        let parsed = if let cache { cache.url(text) } else { URL(string: text) }
        guard let url = parsed else {
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
