import Foundation

/// Which stored responses an unsafe request invalidates (RFC 9111 §4.4).
enum Invalidation {
    /// The URIs whose stored responses a response to `method` on `requestURL` invalidates: none for
    /// a safe method (RFC 9110 §9.2.1: GET, HEAD, OPTIONS, TRACE) or an error or interim status;
    /// else the target URI, and the URI references of `Location` and `Content-Location` resolved
    /// against it when they are on the target's origin (scheme, host and port, ``Origin``), so that
    /// a response cannot make the cache drop another site's entries (§4.4 "MUST NOT").
    ///
    /// cache-tests `invalidate-*` ("check" for Location and Content-Location; `-failed`: a 500
    /// invalidates nothing). Only the first line of each field is read; an unparsable reference is
    /// skipped.
    ///
    /// The caller invalidates these URIs in every credential partition: the change an unsafe request
    /// made is seen by every user of the resource, not only the one who made it.
    static func invalidatedURIs(
        method: HTTPMethod, status: Int, requestURL: URL, responseHeaders: HeaderFields
    )
        -> [URL]
    {
        guard !isSafe(method), (200...399).contains(status) else { return [] }
        var uris = [requestURL]
        for name in ["Location", "Content-Location"] {
            guard let reference = responseHeaders[name], !reference.isEmpty,
                let url = URL(string: reference, relativeTo: requestURL)?.absoluteURL,
                Origin.same(url, requestURL), !uris.contains(url)
            else { continue }
            uris.append(url)
        }
        return uris
    }

    /// Whether a method is safe (RFC 9110 §9.2.1) among the registered ones; an unknown method is
    /// treated as unsafe, which can only invalidate more.
    static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }
}
