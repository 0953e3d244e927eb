import Foundation

/// How a call uses its resource's ``HTTPCache``: set for every call of a target
/// (``Target/cachePolicy``) or for one call (``Executor/cachePolicy(_:)``).
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String { case standard, bypass, revalidate, onlyIfCached }
    private let base: Base

    /// RFC 9111 as the responses and the request's own `Cache-Control` say: fresh answers from the
    /// cache, stale ones revalidated. The default.
    public static let standard = CachePolicy(base: .standard)
    /// The call neither reads from the cache nor stores in it: it goes to the server as if the
    /// resource had none (an unsafe method still invalidates).
    public static let bypass = CachePolicy(base: .bypass)
    /// The stored answer is validated with the server before it is used (as `Cache-Control:
    /// no-cache` in the request, which is not sent): a 304 still serves the stored body. A pull to
    /// refresh.
    public static let revalidate = CachePolicy(base: .revalidate)
    /// Only what is stored, however stale; a 504 made by the cache when nothing is (as
    /// `only-if-cached, max-stale`, not sent). An offline mode.
    public static let onlyIfCached = CachePolicy(base: .onlyIfCached)

    /// `standard`, `bypass`, `revalidate` or `onlyIfCached`.
    public var description: String { base.rawValue }

    /// The request directives the policy stands for, added to the fields the cache decides by.
    var directives: String? {
        switch base {
        case .standard, .bypass: nil
        case .revalidate: "no-cache"
        case .onlyIfCached: "only-if-cached, max-stale"
        }
    }

    /// Whether the cache is left out.
    var bypasses: Bool { base == .bypass }
}
