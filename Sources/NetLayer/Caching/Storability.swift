/// Whether a private cache may store a response (RFC 9111 §3), and which of its fields it keeps
/// (§3.1).
enum Storability {
    /// Why a response is not stored.
    enum Reason: String, Sendable, Hashable {
        /// The request method is not GET (§3: "the request method is understood by the cache";
        /// HEAD responses are not stored, a stored GET response answers a HEAD; POST responses with
        /// explicit freshness and `Content-Location` may be stored by RFC 9110 §9.3.3, but this cache
        /// does not: cache-tests `method-POST` is "optimal").
        case method
        /// An interim (1xx) or otherwise non-final status, 304, or a status outside 100...599.
        case statusNotFinal
        /// 206 Partial Content: this cache does not store or combine ranges (§3.3, §3.4).
        case partialContent
        /// `no-store` in the request (§5.2.1.5).
        case requestNoStore
        /// `no-store` in the response (§5.2.2.5) without a `must-understand` that overrides it.
        case responseNoStore
        /// `must-understand` with a status code whose caching rules this cache does not know
        /// (§5.2.2.3; cache-tests `status-599-must-understand`, required).
        case statusNotUnderstood
        /// No explicit freshness, no `public`/`private`, and a status that is not heuristically
        /// cacheable (§3 last bullet).
        case noPermission
        /// `Vary: *`, a `Vary` naming something that is not a field name, or too many names
        /// (``VaryKey/maximumNames``): no later request could match (§4.1).
        case vary
        /// More `Cache-Control` directives than a cache reads (``CacheControl/maximumDirectives``).
        case tooManyDirectives
    }

    /// Status codes heuristically cacheable by default (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// Status codes whose caching rules this cache understands (§5.2.2.3 `must-understand`): the
    /// final codes RFC 9110 defines, less 206 (no range support) and 304 (never a stored response).
    static let understood: Set<Int> = [
        200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407,
        408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504, 505,
    ]

    /// Whether `status` is heuristically cacheable by default (RFC 9110 §15.1).
    static func isHeuristicallyCacheable(_ status: Int) -> Bool { heuristicallyCacheable.contains(status) }

    /// Why a response to a request may not be stored in a private cache; `nil` when it may.
    ///
    /// A final status the cache does not know (`599`) is stored when something else permits it
    /// (explicit freshness or `public`, §3; cache-tests `status-599-fresh` is "optimal",
    /// `heuristic-599-cached` needs `public`), unless `must-understand` is present.
    static func reasonNotToStore(
        method: HTTPMethod, requestHeaders: HeaderFields, status: Int, responseHeaders: HeaderFields
    ) -> Reason? {
        guard method == .get else { return .method }
        guard (200...599).contains(status), status != 304 else { return .statusNotFinal }
        let request = RequestCacheDirectives(requestHeaders)
        let response = ResponseCacheDirectives(responseHeaders)
        if request.isTruncated || response.isTruncated { return .tooManyDirectives }
        if request.noStore { return .requestNoStore }
        if response.mustUnderstand {
            guard understood.contains(status) else { return .statusNotUnderstood }
        } else if response.noStore {
            return .responseNoStore
        }
        if status == 206 { return .partialContent }
        // §3.5's rule for requests with `Authorization` binds shared caches only: this private
        // cache stores such responses in the partition of the credentials they were fetched with
        // (CacheKey), so they are never served to another user.
        guard case .names = VaryKey.parse(responseHeaders) else { return .vary }
        let permitted =
            response.isPublic || response.isPrivate || response.maxAge != nil
            || !responseHeaders.values(for: "Expires").isEmpty || isHeuristicallyCacheable(status)
        return permitted ? nil : .noPermission
    }

    /// Hop-by-hop fields a cache never stores (§3.1, RFC 9110 §7.6.1), lower-cased.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// The fields of `headers` a cache stores (§3.1): every field but the hop-by-hop ones, those
    /// `Connection` names, and those a `no-cache="…"` directive lists (§5.2.2.4: they may not be
    /// reused without validation, so this cache does not keep them; cache-tests
    /// `headers-omit-headers-listed-in-Cache-Control-no-cache*`, "check").
    static func storedHeaders(_ headers: HeaderFields) -> HeaderFields {
        var omitted = hopByHop
        let (connection, _) = FieldList.elements(headers.values(for: "Connection"), limit: 256)
        for name in connection where FieldList.isToken(name) { omitted.insert(name.lowercased()) }
        if case .listed(let names) = ResponseCacheDirectives(headers).noCache { omitted.formUnion(names) }
        var stored = HeaderFields()
        stored.reserveCapacity(headers.count)
        for field in headers where !omitted.contains(field.name.lowercased()) {
            stored.append(field.name, field.value)
        }
        return stored
    }
}
