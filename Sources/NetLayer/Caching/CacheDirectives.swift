/// The response directives a private cache acts on (RFC 9111 §5.2.2, RFC 5861, RFC 8246).
///
/// `s-maxage` and `proxy-revalidate` apply to shared caches only and are ignored here, except that
/// `s-maxage` still permits storing a response to a request with `Authorization` (§3.5).
/// Unknown directives are ignored (§5.2.3).
struct ResponseCacheDirectives: Sendable, Hashable {
    /// `max-age` (§5.2.2.1); `nil` when absent.
    var maxAge: DeltaSeconds?
    /// `no-cache` (§5.2.2.4): ``CacheControl/FieldNames/all`` means "validate before every reuse";
    /// listed names are fields that must not be reused without validation (the store drops them).
    var noCache: CacheControl.FieldNames?
    /// `no-store` (§5.2.2.5).
    var noStore = false
    /// `private` (§5.2.2.7): allowed in a private cache, and it permits storing (§3).
    var isPrivate = false
    /// `public` (§5.2.2.9): permits storing and heuristic freshness for any final status.
    var isPublic = false
    /// `must-revalidate` (§5.2.2.2): never served stale.
    var mustRevalidate = false
    /// `must-understand` (§5.2.2.3): store only when the status code's caching rules are known,
    /// and then `no-store` is ignored.
    var mustUnderstand = false
    /// `s-maxage` (§5.2.2.10) is present: ignored for freshness, counted for §3.5.
    var hasSharedMaxAge = false
    /// `immutable` (RFC 8246): while fresh, a request's `max-age` (a reload) does not make it
    /// validate (``CacheReuse/decide(request:response:lifetime:age:)``).
    var immutable = false
    /// `stale-while-revalidate` (RFC 5861 §3); `nil` when absent or invalid.
    var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861 §4); `nil` when absent or invalid.
    var staleIfError: Int?
    /// More directives than ``CacheControl/maximumDirectives``: the response is not stored.
    var isTruncated = false

    /// The directives of `headers`' `Cache-Control` fields.
    init(_ headers: HeaderFields) { self.init(CacheControl(headers)) }

    /// The response directives of a parsed field.
    init(_ control: CacheControl) {
        maxAge = control.deltaSeconds("max-age")
        noCache = control.fieldNames("no-cache")
        noStore = control.contains("no-store")
        isPrivate = control.contains("private")
        isPublic = control.contains("public")
        mustRevalidate = control.contains("must-revalidate")
        mustUnderstand = control.contains("must-understand")
        hasSharedMaxAge = control.contains("s-maxage")
        immutable = control.contains("immutable")
        staleWhileRevalidate = control.deltaSeconds("stale-while-revalidate")?.value
        staleIfError = control.deltaSeconds("stale-if-error")?.value
        isTruncated = control.isTruncated
    }
}

/// The request directives a private cache acts on (RFC 9111 §5.2.1, RFC 5861 §4).
///
/// An invalid `max-age` or `min-fresh` is read restrictively (as `0` and "validate"); an invalid
/// `max-stale` is ignored (it could only loosen). A request with more than
/// ``CacheControl/maximumDirectives`` directives bypasses the cache (``isTruncated``).
struct RequestCacheDirectives: Sendable, Hashable {
    /// How much staleness a `max-stale` request accepts (§5.2.1.2).
    enum MaxStale: Sendable, Hashable {
        /// `max-stale` without a value: any staleness.
        case unlimited
        /// At most this many seconds stale.
        case seconds(Int)
    }

    /// `max-age` (§5.2.1.1): the oldest response the client accepts, in seconds.
    var maxAge: DeltaSeconds?
    /// `max-stale` (§5.2.1.2); `nil` when absent or its value is invalid.
    var maxStale: MaxStale?
    /// `min-fresh` (§5.2.1.3).
    var minFresh: DeltaSeconds?
    /// `no-cache` (§5.2.1.4): validate before using a stored response.
    var noCache = false
    /// `no-store` (§5.2.1.5): do not store the response to this request.
    var noStore = false
    /// `only-if-cached` (§5.2.1.7): a stored response or 504, never the network.
    var onlyIfCached = false
    /// `stale-if-error` (RFC 5861 §4) sent by the client; `nil` when absent or invalid.
    var staleIfError: Int?
    /// More directives than ``CacheControl/maximumDirectives``.
    var isTruncated = false

    /// The directives of `headers`' `Cache-Control` fields.
    init(_ headers: HeaderFields) { self.init(CacheControl(headers)) }

    /// The request directives of a parsed field.
    init(_ control: CacheControl) {
        maxAge = control.deltaSeconds("max-age")
        if control.contains("max-stale") {
            let withValue = control.directives.contains { $0.name == "max-stale" && $0.argument != nil }
            if !withValue {
                maxStale = .unlimited
            } else if let seconds = control.deltaSeconds("max-stale")?.value {
                maxStale = .seconds(seconds)
            }
        }
        minFresh = control.deltaSeconds("min-fresh")
        noCache = control.contains("no-cache")
        noStore = control.contains("no-store")
        onlyIfCached = control.contains("only-if-cached")
        staleIfError = control.deltaSeconds("stale-if-error")?.value
        isTruncated = control.isTruncated
    }
}
