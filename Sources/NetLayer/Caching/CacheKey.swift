import Foundation

/// Where a stored response lives: its target URI (method-independent, so a stored GET response
/// can answer HEAD, RFC 9111 §2, §4) within the partition of the credentials it was fetched with
/// (DESIGN §17: a response fetched with one set of credentials is never served to a request that
/// carries other credentials or none).
struct CacheKey: Sendable, Hashable {
    /// The target URI, normalised by ``uri(for:)``.
    let uri: String
    /// The credentials' partition.
    let partition: CredentialPartition

    /// The key of a request to `url` sending `headers`, with `redaction` naming the resource's
    /// secret headers, and `salt` (``CredentialPartition/Salt``) keying the digest.
    init(url: URL, headers: HeaderFields, redaction: Redaction, salt: CredentialPartition.Salt) {
        uri = Self.uri(for: url)
        partition = CredentialPartition(headers: headers, redaction: redaction, salt: salt)
    }

    /// A key from its parts.
    init(uri: String, partition: CredentialPartition) {
        self.uri = uri
        self.partition = partition
    }

    /// A name for the entry that reveals neither the URI (its query may hold a secret param) nor
    /// the credentials: HMAC-SHA-256 under `salt` of the URI digest and the partition, in hex. For a
    /// disk store's file names and an index that must not hold secrets in the clear.
    func digest(salt: CredentialPartition.Salt) -> String {
        let message = Array((Self.uriDigest(uri, salt: salt) + "|" + partition.digest).utf8)
        return CredentialPartition.hex(SHA256.authenticationCode(key: salt.bytes, message: message))
    }

    /// HMAC-SHA-256 under `salt` of a normalised URI, in hex: what an index keyed by URI holds, so
    /// that invalidation (§4.4) finds every partition's entries for a URI without storing the URI.
    static func uriDigest(_ uri: String, salt: CredentialPartition.Salt) -> String {
        CredentialPartition.hex(SHA256.authenticationCode(key: salt.bytes, message: Array(uri.utf8)))
    }

    /// `url` as a cache compares it (RFC 9110 §4.2.3): scheme and host lower-cased, the scheme's
    /// default port left out, an empty path as `/`, the fragment dropped (it is never sent); the
    /// path and query otherwise byte for byte. Secret query params stay in it: a disk store names
    /// its files by a digest of the whole key, never by this text.
    static func uri(for url: URL) -> String {
        quickURI(url.absoluteString) ?? parsedURI(for: url)
    }

    /// ``uri(for:)`` through `URLComponents`: the general path.
    static func parsedURI(for url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if let scheme = components.scheme, components.port == Origin.defaultPort(forScheme: scheme) {
            components.port = nil
        }
        if components.percentEncodedPath.isEmpty, components.host != nil {
            components.percentEncodedPath = "/"
        }
        return components.string ?? url.absoluteString
    }

    /// ``uri(for:)`` of the common `scheme://host[:port]/path?query` text without parsing it
    /// again (a cache hit pays for this on every call); `nil` for anything else (user info, an
    /// IPv6 literal, no `://`), which the general path handles.
    static func quickURI(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd].lowercased()
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("[") else { return nil }
        if let colon = authority.lastIndex(of: ":") {
            let port = authority[authority.index(after: colon)...]
            guard port.allSatisfy(\.isNumber) else { return nil }
            if port.isEmpty || Int(port) == Origin.defaultPort(forScheme: scheme) {
                authority = String(authority[..<colon])
            }
        }
        var tail = rest[authorityEnd...]
        if let hash = tail.firstIndex(of: "#") { tail = tail[..<hash] }
        let path = tail.first == "/" ? String(tail) : "/" + tail
        return scheme + "://" + authority + path
    }
}

/// The partition of the cache a request's credentials select: a keyed digest of its `Authorization`,
/// `Proxy-Authorization` and `Cookie` fields and of every field its resource's ``Redaction`` calls
/// secret (API keys in custom headers), or ``anonymous`` when it sends none.
///
/// The digest is HMAC-SHA-256 (``SHA256``) keyed by a ``Salt``, so that the partition names found in
/// memory or on disk do not let anyone test guesses of a token offline without the salt. A 64-bit
/// FNV-1a (as `DownloadFiles` uses for file names) would be cheaper, but it is not
/// collision-resistant: a client able to choose its own token could aim at another's partition.
/// The cost is one HMAC over a few hundred bytes per cacheable request.
///
/// Secret query params need no place here: they are part of the URI, and so of the key already.
struct CredentialPartition: Sendable, Hashable {
    /// The secret key of the digest: random per process by default (``Salt/process``); a disk store
    /// that must find its entries after a restart keeps a salt of its own next to them (and a
    /// new salt, like a deleted one, only makes every entry a miss).
    struct Salt: Sendable, Hashable {
        /// The key bytes.
        let bytes: [UInt8]

        /// 32 bytes from the system's random source.
        static func random() -> Salt {
            var generator = SystemRandomNumberGenerator()
            return Salt(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        }

        /// The salt of this process, made once.
        static let process = random()
    }

    /// The hex digest; empty for ``anonymous``.
    let digest: String

    /// The partition of requests that carry no credentials.
    static let anonymous = CredentialPartition(digest: "")

    /// Whether no credentials were sent.
    var isAnonymous: Bool { digest.isEmpty }

    private init(digest: String) { self.digest = digest }

    /// Fields that carry credentials whatever a resource's redaction says (lower-case).
    static let credentialNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The partition of `headers`: their credential fields sorted by lower-cased name (stable), each
    /// name's lines in order, framed unambiguously (lengths before bytes) and digested with `salt`.
    init(headers: HeaderFields, redaction: Redaction, salt: Salt) {
        var credentials: [(name: String, value: String)] = []
        for field in headers {
            let name = field.name.lowercased()
            if Self.credentialNames.contains(name) || redaction.isSecret(field.name) {
                credentials.append((name, field.value))
            }
        }
        guard !credentials.isEmpty else {
            self = .anonymous
            return
        }
        // A stable sort by name keeps each name's lines in their order.
        let ordered = credentials.enumerated().sorted {
            ($0.element.name, $0.offset) < ($1.element.name, $1.offset)
        }
        var message: [UInt8] = []
        for (_, field) in ordered {
            for part in [field.name, field.value] {
                let bytes = Array(part.utf8)
                withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { message.append(contentsOf: $0) }
                message.append(contentsOf: bytes)
            }
        }
        let code = SHA256.authenticationCode(key: salt.bytes, message: message)
        digest = Self.hex(code)
    }

    /// Lower-case hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
