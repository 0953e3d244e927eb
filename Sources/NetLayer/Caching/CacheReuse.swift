/// What a private cache may do with a stored response for a new request (RFC 9111 §4, §4.2.4,
/// §5.2.1, RFC 5861): the request's directives and the response's combined into one answer.
enum CacheReuse: Sendable, Hashable {
    /// Serve it: fresh enough for the request. `timeToLive` is the seconds of freshness left
    /// (RFC 9211 `ttl`).
    case fresh(timeToLive: Double)
    /// Serve it stale, without validation, because the request's `max-stale` accepts it
    /// (§5.2.1.2). `staleness` is how many seconds past its lifetime it is.
    case staleAcceptedByRequest(staleness: Double)
    /// Serve it stale and revalidate in the background (RFC 5861 §3 `stale-while-revalidate`).
    case staleWhileRevalidate(staleness: Double)
    /// Send a conditional request (§4.3). When that fails (a network error, or a 500, 502, 503 or
    /// 504), the stored response may still be served for `staleIfErrorWindow` more seconds
    /// (RFC 5861 §4); `nil` means it may not.
    case mustValidate(staleIfErrorWindow: Double?)
    /// `only-if-cached` and the stored response cannot be used without the network: answer 504
    /// (§5.2.1.7).
    case gatewayTimeout

    /// The decision for a stored response of `lifetime` and `age` seconds.
    ///
    /// - A response `no-cache` (unqualified) or request `no-cache` always validates (§5.2.2.4,
    ///   §5.2.1.4; cache-tests `cc-resp-no-cache`, required).
    /// - Fresh means `age < lifetime` (§4.2; a response of `max-age=0` is stale at once,
    ///   `freshness-max-age-0`, required). The request's `max-age` (age must not exceed it) and
    ///   `min-fresh` (at least that much freshness left) can only make a fresh response validate.
    ///   An invalid request `max-age` or `min-fresh` is read as "validate".
    /// - Stale: `must-revalidate` forbids any stale use, `stale-if-error` included (§4.2.4,
    ///   §5.2.2.2; `cc-resp-must-revalidate-stale`, required). Otherwise a request `max-stale` that
    ///   covers the staleness serves it (a request `max-age` still bounds the age); else
    ///   `stale-while-revalidate` covers the first seconds of staleness (`stale-while-revalidate-window`,
    ///   required, checks the window ends); else validate, with the longer of the response's and the
    ///   request's `stale-if-error` as the fallback window.
    /// - `only-if-cached` turns every "validate" into ``gatewayTimeout``.
    static func decide(
        request: RequestCacheDirectives, response: ResponseCacheDirectives, lifetime: Double, age: Double
    ) -> CacheReuse {
        let decision = decideIgnoringOnlyIfCached(
            request: request, response: response, lifetime: lifetime, age: age)
        if request.onlyIfCached, case .mustValidate = decision { return .gatewayTimeout }
        return decision
    }

    private static func decideIgnoringOnlyIfCached(
        request: RequestCacheDirectives, response: ResponseCacheDirectives, lifetime: Double, age: Double
    ) -> CacheReuse {
        let staleness = age - lifetime
        let mayServeStale = !response.mustRevalidate && response.noCache != .all
        let errorWindow: Double? = {
            guard mayServeStale else { return nil }
            let allowed = max(response.staleIfError ?? -1, request.staleIfError ?? -1)
            guard allowed >= 0 else { return nil }
            let left = Double(allowed) - max(0, staleness)
            return left > 0 ? left : nil
        }()
        let validate = CacheReuse.mustValidate(staleIfErrorWindow: errorWindow)
        if response.noCache == .all || request.noCache { return validate }
        // RFC 8246 §2: a fresh `immutable` response is not revalidated for a reload's `max-age`
        // (cache-tests `cc-resp-immutable-fresh`, optimal); a request `no-cache` still validates.
        if let maxAge = request.maxAge, !(response.immutable && staleness < 0) {
            guard let seconds = maxAge.value, age <= Double(seconds) else { return validate }
        }
        if staleness < 0 {
            let left = -staleness
            if let minFresh = request.minFresh {
                guard let seconds = minFresh.value, left >= Double(seconds) else { return validate }
            }
            return .fresh(timeToLive: left)
        }
        guard mayServeStale else { return validate }
        switch request.maxStale {
        case .unlimited?:
            return .staleAcceptedByRequest(staleness: staleness)
        case .seconds(let seconds)? where staleness <= Double(seconds):
            return .staleAcceptedByRequest(staleness: staleness)
        default:
            break
        }
        if let window = response.staleWhileRevalidate, staleness < Double(window) {
            return .staleWhileRevalidate(staleness: staleness)
        }
        return validate
    }
}
