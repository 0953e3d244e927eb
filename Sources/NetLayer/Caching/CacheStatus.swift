import Foundation

/// What NetLayer's ``HTTPCache`` did for a response, read from the member it adds to the response's
/// `Cache-Status` field (RFC 9211): ``Response/cacheStatus``.
public struct CacheStatus: Sendable, Hashable, CustomStringConvertible {
    /// The answer came from the cache without a request to the server (`hit`), fresh or, when
    /// the request or `stale-while-revalidate` allowed it, stale.
    public let isHit: Bool
    /// Why a request went to the server (`fwd`): `uri-miss` (nothing stored for the URL),
    /// `vary-miss` (no stored variant for these request fields), `stale` (validation), `request`
    /// (the call asked for validation), `miss`; `nil` for a fresh hit.
    public let forwardReason: String?
    /// The status the server answered that request (`fwd-status`): `304` for a revalidation.
    public let forwardStatus: Int?
    /// The answer was stored (`stored`).
    public let isStored: Bool
    /// Seconds of freshness left when it was served (`ttl`).
    public let timeToLive: Int?
    /// More about it (`detail`): `disconnected` (the server could not be reached),
    /// `only-if-cached`.
    public let detail: String?

    /// Reads NetLayer's member of a `Cache-Status` field value; `nil` when it has none.
    init?(fieldValues: [String]) {
        let members = fieldValues.flatMap { $0.split(separator: ",") }
        guard
            let ours = members.first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix(CacheStatus.cacheName)
            })
        else { return nil }
        var isHit = false
        var isStored = false
        var parameters: [String: String] = [:]
        for part in ours.split(separator: ";").dropFirst().prefix(16) {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let equals = item.firstIndex(of: "=") else {
                if item == "hit" { isHit = true }
                if item == "stored" { isStored = true }
                continue
            }
            parameters[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        self.isHit = isHit
        self.isStored = isStored
        forwardReason = parameters["fwd"]
        forwardStatus = parameters["fwd-status"].flatMap { Int($0) }
        timeToLive = parameters["ttl"].flatMap { Int($0) }
        detail = parameters["detail"]
    }

    /// The cache's name in the field: `NetLayer`.
    static let cacheName = "NetLayer"

    /// One word, as debug output prints it: `hit` (fresh from the cache), `stale` (a stored answer
    /// served stale), `revalidated` (a 304 freshened the stored answer), `stored` (the server's
    /// answer, now stored) or `miss` (the server's answer, not stored).
    public var description: String {
        if isHit { return forwardReason == "stale" ? "stale" : "hit" }
        if forwardReason == "stale", forwardStatus == 304 { return "revalidated" }
        if forwardReason == "stale", detail == "disconnected" || (forwardStatus ?? 0) >= 500 {
            return "stale"
        }
        return isStored ? "stored" : "miss"
    }
}

extension Response {
    /// What the resource's ``HTTPCache`` did for this response; `nil` when the resource has no
    /// cache or the call passed it by.
    public var cacheStatus: CacheStatus? {
        CacheStatus(fieldValues: headerFields.values(for: "Cache-Status"))
    }
}
