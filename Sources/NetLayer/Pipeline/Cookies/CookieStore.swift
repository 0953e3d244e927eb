import Foundation

/// RFC 6265's storage model (§5.3) and its Cookie header (§5.4), as a plain value: what a
/// ``CookieJar`` keeps behind its lock. No I/O and no clock: every operation is given the time.
///
/// Domains are checked without a public-suffix list: a `Domain` that is a single label (`com`,
/// `localhost` when the host is another) is refused, but a multi-label public suffix (`co.uk`,
/// `github.io`) is not recognised, so a server may set a cookie on it for its sibling hosts. Keep
/// one jar per service (the default: a jar belongs to the resources you give it), not one jar for
/// hosts that do not trust each other.
struct CookieStore: Sendable {
    /// The most cookies kept for one domain; past it the oldest of that domain goes.
    let perDomain: Int
    /// The most cookies kept in all; past it the oldest of the store goes.
    let total: Int
    /// The most bytes a cookie's name and value may have together; a longer one is refused.
    let pairBytes: Int
    /// Kept cookies by their ``Cookie/domain``, each list in the order they were first stored.
    private var byDomain: [String: [Entry]] = [:]
    private(set) var count = 0
    /// Orders cookies stored at the same time (one response's fields), for a stable header.
    private var nextSequence = 0

    private struct Entry: Sendable {
        var cookie: Cookie
        var sequence: Int
    }

    /// The longest a cookie lives, whatever its `Max-Age` or `Expires` (RFC 6265bis §5.6.1: 400
    /// days).
    static let maximumLifetime: TimeInterval = 400 * 86_400

    init(perDomain: Int, total: Int, pairBytes: Int) {
        self.perDomain = perDomain
        self.total = total
        self.pairBytes = pairBytes
    }

    /// Every cookie, oldest first.
    var all: [Cookie] {
        byDomain.values.joined().sorted(by: Self.olderFirst).map(\.cookie)
    }

    /// Parses and stores `Set-Cookie` values received from `url` at `now`, in order (a later field
    /// replaces an earlier one of the same name, domain and path). Values §5.2 or §5.3 ignore are
    /// ignored.
    mutating func store(setCookieValues values: [String], from url: URL, now: Date) {
        guard let origin = RequestOrigin(url) else { return }
        // Looked up once per response: a non-secure origin adds no secure cookie.
        let secure = origin.isSecure ? [:] : secureCookies
        for value in values {
            guard let parsed = SetCookie.parse(value, maximumPairBytes: pairBytes) else { continue }
            store(parsed, from: origin, now: now, secureCookies: secure)
        }
    }

    /// The domain and path of every secure cookie, by name.
    var secureCookies: [String: [(domain: String, path: String)]] {
        var found: [String: [(domain: String, path: String)]] = [:]
        for entry in byDomain.values.joined() where entry.cookie.secure {
            found[entry.cookie.name, default: []].append((entry.cookie.domain, entry.cookie.path))
        }
        return found
    }

    /// §5.3 for one parsed field; `secureCookies` is ``secureCookies`` (read by a non-secure
    /// origin only), `nil` to look it up.
    mutating func store(
        _ parsed: SetCookie, from origin: RequestOrigin, now: Date,
        secureCookies: [String: [(domain: String, path: String)]]? = nil
    ) {
        // Step 3: Max-Age wins over Expires; either is capped at 400 days (RFC 6265bis).
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires =
                maxAge <= 0
                ? Date.distantPast
                : now.addingTimeInterval(min(TimeInterval(maxAge), Self.maximumLifetime))
        } else if let date = parsed.expires {
            expires = min(date, now.addingTimeInterval(Self.maximumLifetime))
        }
        // Steps 4–6: the domain, without a public-suffix list (see the type's note).
        var domain = origin.host
        var hostOnly = true
        if let attribute = parsed.domain, attribute != origin.host {
            // A single label is a public suffix (or a host of its own); an IP address host gets
            // host-only cookies only; the host must domain-match the attribute.
            guard attribute.contains("."), !origin.isIPAddress,
                Self.domainMatches(origin.host, attribute, hostIsIP: false)
            else { return }
            domain = attribute
            hostOnly = false
        } else if parsed.domain != nil, !origin.isIPAddress, origin.host.contains(".") {
            // `Domain=` the host itself: sent to its subdomains too.
            hostOnly = false
        }
        // Step 7.
        let path = parsed.path ?? Self.defaultPath(origin.path)
        // Step 8 with RFC 6265bis §5.6: a Secure cookie only from a secure origin.
        if parsed.secure, !origin.isSecure { return }
        // RFC 6265bis §4.1.3: the name prefixes `__Secure-` and `__Host-`.
        if Self.hasPrefix(parsed.name, "__secure-"), !parsed.secure { return }
        if Self.hasPrefix(parsed.name, "__host-"), !parsed.secure || !hostOnly || path != "/" { return }
        // RFC 6265bis §5.6 step 16: a non-secure origin neither replaces nor shadows a secure cookie.
        if !origin.isSecure {
            let secure = (secureCookies ?? self.secureCookies)[parsed.name] ?? []
            let overlaps = secure.contains { old in
                (Self.domainMatches(old.domain, domain, hostIsIP: false)
                    || Self.domainMatches(domain, old.domain, hostIsIP: false))
                    && Self.pathMatches(path, old.path)
            }
            if overlaps { return }
        }
        var cookie = Cookie(
            name: parsed.name, value: parsed.value, domain: domain, path: path, expires: expires,
            secure: parsed.secure, httpOnly: parsed.httpOnly, hostOnly: hostOnly, sameSite: parsed.sameSite,
            creation: now)
        // Step 11: a replacement keeps the creation time (and place) of the cookie it replaces.
        // Taken out of the dictionary while it changes, so that it is not copied on every store.
        var entries = byDomain.removeValue(forKey: domain) ?? []
        let existing = entries.firstIndex {
            $0.cookie.name == cookie.name && $0.cookie.path == cookie.path
                && $0.cookie.hostOnly == cookie.hostOnly
        }
        if cookie.isExpired(at: now) {
            // Step 12 (Max-Age=0, an Expires in the past): the cookie is deleted, not stored.
            if let existing {
                entries.remove(at: existing)
                count -= 1
            }
            byDomain[domain] = entries.isEmpty ? nil : entries
            return
        }
        if let existing {
            cookie.creation = entries[existing].cookie.creation
            entries[existing].cookie = cookie
            byDomain[domain] = entries
            return
        }
        entries.append(Entry(cookie: cookie, sequence: nextSequence))
        nextSequence += 1
        count += 1
        // §5.3's eviction: expired cookies first, then the oldest of the domain, then of the store.
        if entries.count > perDomain {
            let before = entries.count
            entries.removeAll { $0.cookie.isExpired(at: now) }
            if entries.count > perDomain,
                let oldest = entries.indices.min(by: { Self.olderFirst(entries[$0], entries[$1]) })
            {
                entries.remove(at: oldest)
            }
            count -= before - entries.count
        }
        byDomain[domain] = entries
        if count > total { evictFromStore(now: now) }
    }

    /// The cookies a request to `url` at `now` sends, in §5.4's order: longer paths first, then
    /// earlier creation. Expired cookies of the domains looked at are removed.
    mutating func cookies(for url: URL, now: Date) -> [Cookie] {
        guard let origin = RequestOrigin(url) else { return [] }
        var found: [Entry] = []
        for domain in origin.domains {
            guard var entries = byDomain[domain] else { continue }
            let before = entries.count
            entries.removeAll { $0.cookie.isExpired(at: now) }
            if entries.count != before {
                count -= before - entries.count
                byDomain[domain] = entries.isEmpty ? nil : entries
            }
            for entry in entries {
                let cookie = entry.cookie
                guard !cookie.hostOnly || cookie.domain == origin.host,
                    Self.pathMatches(origin.path, cookie.path),
                    !cookie.secure || origin.isSecure
                else { continue }
                found.append(entry)
            }
        }
        found.sort { a, b in
            let lengthA = a.cookie.path.utf8.count
            let lengthB = b.cookie.path.utf8.count
            return lengthA != lengthB ? lengthA > lengthB : Self.olderFirst(a, b)
        }
        return found.map(\.cookie)
    }

    /// The `Cookie` header value for `url` at `now` (`a=1; b=2`), `nil` when none applies.
    mutating func headerValue(for url: URL, now: Date) -> String? {
        let cookies = cookies(for: url, now: now)
        guard !cookies.isEmpty else { return nil }
        return cookies.map(\.pair).joined(separator: "; ")
    }

    mutating func removeAll() {
        byDomain = [:]
        count = 0
    }

    /// Removes the cookies of `domain` and of its subdomains.
    mutating func remove(domain: String) {
        var domain = domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        for key in Array(byDomain.keys) where Self.domainMatches(key, domain, hostIsIP: false) {
            count -= byDomain[key]?.count ?? 0
            byDomain[key] = nil
        }
    }

    /// Over the total: expired cookies go first, then the oldest ones until the store fits.
    private mutating func evictFromStore(now: Date) {
        for (domain, entries) in byDomain {
            let kept = entries.filter { !$0.cookie.isExpired(at: now) }
            if kept.count != entries.count {
                count -= entries.count - kept.count
                byDomain[domain] = kept.isEmpty ? nil : kept
            }
        }
        guard count > total else { return }
        let excess = count - total
        let oldest = byDomain.values.joined().sorted(by: Self.olderFirst).prefix(excess)
        var doomed = Set(oldest.map(\.sequence))
        for (domain, entries) in byDomain where !doomed.isEmpty {
            let kept = entries.filter { !doomed.contains($0.sequence) }
            guard kept.count != entries.count else { continue }
            for entry in entries where doomed.contains(entry.sequence) { doomed.remove(entry.sequence) }
            count -= entries.count - kept.count
            byDomain[domain] = kept.isEmpty ? nil : kept
        }
    }

    private static func olderFirst(_ a: Entry, _ b: Entry) -> Bool {
        a.cookie.creation != b.cookie.creation
            ? a.cookie.creation < b.cookie.creation : a.sequence < b.sequence
    }

    private static func hasPrefix(_ name: String, _ lowercasedPrefix: String) -> Bool {
        name.utf8.count >= lowercasedPrefix.utf8.count
            && name.utf8.prefix(lowercasedPrefix.utf8.count).map { $0 | 0x20 }.elementsEqual(
                lowercasedPrefix.utf8.map { $0 | 0x20 })
    }

    // MARK: §5.1.3 and §5.1.4

    /// §5.1.3: `host` equals `domain`, or ends with `.` + `domain` and is not an IP address.
    /// Both lower-case.
    static func domainMatches(_ host: String, _ domain: String, hostIsIP: Bool) -> Bool {
        if host == domain { return true }
        guard !hostIsIP, !domain.isEmpty, host.utf8.count > domain.utf8.count, host.hasSuffix(domain) else {
            return false
        }
        let dot = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[dot] == UInt8(ascii: ".")
    }

    /// §5.1.4's default-path of a request path (percent-encoded, as sent).
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")),
            slash != path.utf8.startIndex
        else { return "/" }
        return String(path[..<slash])
    }

    /// §5.1.4: the request path equals the cookie path, or starts with it where the cookie path
    /// ends with `/` or the next character of the request path is `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        let next = requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return requestPath.utf8[next] == UInt8(ascii: "/")
    }
}

/// What the storage model needs of a request URL: its host (lower-cased, IPv6 without brackets),
/// its path as sent, and whether it is `https`.
struct RequestOrigin: Sendable, Hashable {
    var host: String
    var path: String
    var isSecure: Bool
    var isIPAddress: Bool

    /// `nil` for a URL that is not http(s) or has no host.
    init?(_ url: URL) {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", var host = url.host(percentEncoded: true)?.lowercased(),
            !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A trailing dot names the same host; the cookie's domain is kept without it.
        if host.count > 1, host.hasSuffix(".") { host.removeLast() }
        self.init(host: host, path: url.path(percentEncoded: true), isSecure: scheme == "https")
    }

    init(host: String, path: String, isSecure: Bool) {
        self.host = host
        self.path = path.isEmpty ? "/" : path
        self.isSecure = isSecure
        isIPAddress = host.contains(":") || Self.isIPv4(host)
    }

    /// The domains whose cookies may apply: the host, then each parent domain (not for an IP).
    var domains: [String] {
        guard !isIPAddress else { return [host] }
        var result = [host]
        var rest = host[...]
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { result.append(String(rest)) }
        }
        return result
    }

    private static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit)
            }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
