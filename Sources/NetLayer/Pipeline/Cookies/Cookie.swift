import Foundation

/// One cookie a ``CookieJar`` keeps, as RFC 6265 §5.3 stores it.
///
/// Made by the jar from a `Set-Cookie` field; every field is the stored, canonical value (the
/// domain lower-cased without a leading dot, the path defaulted per §5.1.4).
public struct Cookie: Sendable, Hashable {
    /// The `SameSite` attribute as received (RFC 6265bis). NetLayer is not a browser: it has no
    /// "site for cookies", so the attribute is kept for inspection and does not change what is sent.
    public enum SameSite: String, Sendable, Hashable {
        case strict = "Strict"
        case lax = "Lax"
        case none = "None"
    }

    /// The name, not empty.
    public var name: String
    /// The value, possibly empty.
    public var value: String
    /// The domain the cookie belongs to, lower-cased, without a leading dot: the request's host for
    /// a host-only cookie, the `Domain` attribute otherwise.
    public var domain: String
    /// The path the cookie is sent under (the `Path` attribute, or the default path of the URL
    /// that set it).
    public var path: String
    /// When the cookie expires; `nil` for a session cookie (kept as long as the jar).
    public var expires: Date?
    /// Sent only over `https`.
    public var secure: Bool
    /// The `HttpOnly` attribute. NetLayer is an HTTP API, so such a cookie is sent like any other.
    public var httpOnly: Bool
    /// Sent only to exactly ``domain`` (no `Domain` attribute was given), not to its subdomains.
    public var hostOnly: Bool
    /// The `SameSite` attribute, when the server gave a known one.
    public var sameSite: SameSite?
    /// When the cookie was first stored (a replacement keeps the time of the cookie it replaced).
    public var creation: Date

    /// Creates a cookie (for tests and for inspecting a jar; a jar makes its own from
    /// `Set-Cookie` fields).
    public init(
        name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
        secure: Bool = false, httpOnly: Bool = false, hostOnly: Bool = true, sameSite: SameSite? = nil,
        creation: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.hostOnly = hostOnly
        self.sameSite = sameSite
        self.creation = creation
    }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// The cookie's `name=value` pair as a `Cookie` header sends it.
    public var pair: String { name + "=" + value }
}
