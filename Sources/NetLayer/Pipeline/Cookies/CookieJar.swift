import Foundation

/// Keeps the cookies servers set and sends them back, by RFC 6265's rules, the same way over every
/// transport. Off by default: give a jar to ``ResourceOptions/cookieJar`` to turn it on.
///
/// ```swift
/// let jar = CookieJar()
/// let options = ResourceOptions { $0.cookieJar = jar }
/// ```
///
/// Every hop of a call (each redirect too) is sent with the cookies of its own URL, and every
/// response, a redirect's included, stores its `Set-Cookie` fields. Resources given the same jar
/// share their cookies; resources with jars of their own do not.
///
/// Bounded as browsers are (``Limits``): past the number of cookies of a domain or of the jar, the
/// oldest go. A cookie lives at most 400 days whatever its `Max-Age` or `Expires`. There is no
/// public-suffix list: a `Domain` that is a single label (`com`) is refused, a multi-label public
/// suffix (`co.uk`) is not recognised, so do not share one jar between services that do not trust
/// each other. Cookies live in memory only, as long as the jar.
///
/// Thread safe: the cookies sit behind a lock held only to read or change them (never across I/O
/// or an `await`); a `Set-Cookie` field is parsed before the lock is taken.
public final class CookieJar: Sendable {
    /// How many cookies a jar keeps and how large one may be.
    public struct Limits: Sendable, Hashable {
        /// The most cookies of one domain; past it the oldest of that domain goes. Default 50.
        public var cookiesPerDomain: Int
        /// The most cookies in all; past it the oldest of the jar goes. Default 3,000.
        public var cookies: Int
        /// The most bytes a cookie's name and value may have together; a `Set-Cookie` with a
        /// longer pair is ignored. Default 4,096.
        public var nameAndValueBytes: Int

        /// Creates limits. Each must be at least 1: a smaller one makes every call of a resource
        /// using the jar throw ``NetLayerError/Code/invalidValue`` (and the jar itself keeps
        /// nothing). Values above ``maximum`` are clamped to it.
        public init(cookiesPerDomain: Int = 50, cookies: Int = 3_000, nameAndValueBytes: Int = 4_096) {
            self.cookiesPerDomain = cookiesPerDomain
            self.cookies = cookies
            self.nameAndValueBytes = nameAndValueBytes
        }

        /// Browser-like bounds: 50 per domain, 3,000 in all, 4,096 bytes per name and value.
        public static let `default` = Limits()

        /// The largest limits a jar accepts (larger ones are clamped): 100,000 cookies per domain
        /// and in all, 1 MiB per name and value.
        public static let maximum = Limits(
            cookiesPerDomain: 100_000, cookies: 100_000, nameAndValueBytes: 1 << 20)

        /// Why these limits are refused, if they are.
        var problem: NetLayerError? {
            for (name, value) in [
                ("cookiesPerDomain", cookiesPerDomain), ("cookies", cookies),
                ("nameAndValueBytes", nameAndValueBytes),
            ] where value < 1 {
                return .invalidValue(part: "CookieJar.Limits.\(name)", reason: "\(value) is less than 1")
            }
            return nil
        }
    }

    /// The limits as given.
    public let limits: Limits
    /// Set when ``limits`` are refused: every call of a resource using the jar throws it.
    let problem: NetLayerError?
    private let store: LockedValue<CookieStore>

    /// Creates an empty jar.
    /// - Parameter limits: Default ``Limits/default``.
    public init(limits: Limits = .default) {
        self.limits = limits
        let problem = limits.problem
        self.problem = problem
        // A refused limit keeps nothing (calls throw before they are sent); a huge one is clamped.
        func clamped(_ value: Int, _ maximum: Int) -> Int { problem == nil ? min(value, maximum) : 0 }
        store = LockedValue(
            CookieStore(
                perDomain: clamped(limits.cookiesPerDomain, Limits.maximum.cookiesPerDomain),
                total: clamped(limits.cookies, Limits.maximum.cookies),
                pairBytes: clamped(limits.nameAndValueBytes, Limits.maximum.nameAndValueBytes)))
    }

    /// The cookies a request to `url` would send now, in the order of its `Cookie` header (RFC
    /// 6265 §5.4: longer paths first, then earlier creation). Expired cookies are removed.
    /// - Parameters:
    ///   - url: An http or https URL; any other gives none.
    ///   - now: Default: the current time.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        store.withLock { $0.cookies(for: url, now: now) }
    }

    /// Stores the cookies of `Set-Cookie` field values received from `url`, as the jar does with
    /// every response (RFC 6265 §5.2 and §5.3). A value that is invalid or not allowed for `url`
    /// (a `Domain` the host is not in, a `Secure` cookie from `http`) is ignored.
    /// - Parameters:
    ///   - setCookieValues: One value per `Set-Cookie` field, in the order received.
    ///   - url: The URL of the request that received them.
    ///   - now: Default: the current time.
    public func store(setCookieValues: [String], from url: URL, now: Date = Date()) {
        guard !setCookieValues.isEmpty, problem == nil, let origin = RequestOrigin(url) else { return }
        // Parsed outside the lock.
        let parsed = setCookieValues.compactMap { SetCookie.parse($0, maximumPairBytes: pairBytes) }
        guard !parsed.isEmpty else { return }
        store.withLock { store in
            let secure = origin.isSecure ? [:] : store.secureCookies
            for cookie in parsed { store.store(cookie, from: origin, now: now, secureCookies: secure) }
        }
    }

    /// Removes every cookie.
    public func removeAll() { store.withLock { $0.removeAll() } }

    /// Removes the cookies of `domain` (any case, a leading dot ignored) and of its subdomains.
    public func remove(domain: String) { store.withLock { $0.remove(domain: domain) } }

    /// Every cookie the jar holds, expired ones not yet removed included, oldest first.
    public var all: [Cookie] { store.withLock { $0.all } }

    /// The `Cookie` header value for `url` now (`a=1; b=2`), `nil` when no cookie applies.
    func headerValue(for url: URL, now: Date) -> String? {
        store.withLock { $0.headerValue(for: url, now: now) }
    }

    private var pairBytes: Int { min(limits.nameAndValueBytes, Limits.maximum.nameAndValueBytes) }
}
