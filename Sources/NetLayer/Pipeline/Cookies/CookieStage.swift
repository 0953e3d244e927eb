import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The resource's ``CookieJar`` as a stage, inside the redirect stage so that it runs on every hop:
/// the hop's request gets the cookies of its own URL in one `Cookie` field (after the caller's own
/// `Cookie` pairs, when the request has some), and the hop's response — a redirect's too — stores
/// its `Set-Cookie` fields before it is handed on. An answer the cache made stores only what the
/// server sent in that exchange (``ResponseHead/setCookiesFromServer``).
struct CookieStage: Stage {
    let jar: CookieJar

    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        if let problem = jar.problem { throw problem }
        var request = request
        if let pairs = jar.headerValue(for: request.url, now: Date()) {
            Self.add(pairs, to: &request)
            // The first hop's header block is recorded when it goes to the transport; a later
            // hop's cookies are secrets of the call too, masked wherever the call prints.
            if context.isFollowUpHop { context.call?.attempts.sentOnFollowUpHop(request.headerFields) }
        }
        let response = try await next(request, context)
        let values = response.head.setCookiesFromServer ?? Self.setCookieValues(of: response.head)
        if !values.isEmpty { jar.store(setCookieValues: values, from: request.url, now: Date()) }
        return response
    }

    /// Adds the jar's `pairs` to the request's `Cookie` field: appended with `; ` to a value the
    /// caller set, else as the field. Both are valid field values (the jar keeps no control
    /// characters), so a checked request stays checked.
    static func add(_ pairs: String, to request: inout TransportRequest) {
        let checked = request.isChecked
        if let existing = request.headerFields["Cookie"], !existing.isEmpty {
            request.headerFields.set("Cookie", existing + "; " + pairs)
        } else {
            request.headerFields.set("Cookie", pairs)
        }
        request.isChecked = checked
    }

    /// The response's `Set-Cookie` field values. Foundation keeps one value per name, joining
    /// repeated fields with `, `: that value is split back into fields.
    static func setCookieValues(of head: ResponseHead) -> [String] {
        if let foundation = head.foundation {
            guard let joined = foundation.value(forHTTPHeaderField: "Set-Cookie") else { return [] }
            return SetCookie.splitJoined(joined)
        }
        return head.headerFields.values(for: "Set-Cookie")
    }
}
