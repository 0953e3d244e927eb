import NetLayer

/// The header fields of one test request, as the suite's browser-profile client sends them
/// (`test-engine/client/fetching.mjs`): the request's own fields, `Test-Name`, `Test-ID` and
/// `Req-Num`, and what its Fetch cache mode adds.
struct RequestFields: Sendable {
    /// Name → value; a name given twice is sent once with both values joined by `, `, as a fetch
    /// client combines them (NetLayer sends each request field name once).
    let fields: [String: String]
    /// Whether the request sets its own `Content-Type`.
    let hasContentType: Bool

    /// The fields of request `number` of `test`.
    /// - Throws: ``TestFailure`` when `request_headers` is malformed.
    static func make(
        for request: RequestTemplate, number: Int, test: SuiteTest, previous: ObservedResponse?
    ) throws(TestFailure) -> RequestFields {
        var ordered: [(name: String, value: String)] = []
        for header in try request.headers("request_headers") {
            var value = header.text ?? ""
            if request.magicIMS, header.lowercasedName == "if-modified-since" {
                value = MagicValues.resolve(header, relativeTo: previous, in: request) ?? value
            }
            ordered.append((header.name, value))
        }
        ordered += fetchCacheModeFields(request.fetchCacheMode, present: ordered.map { $0.name.lowercased() })
        ordered.append(("Test-Name", test.name))
        ordered.append(("Test-ID", test.id))
        ordered.append(("Req-Num", String(number)))

        var combined: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in ordered {
            let key = name.lowercased()
            let spelled = spelling[key] ?? name
            spelling[key] = spelled
            combined[spelled] = combined[spelled].map { "\($0), \(value)" } ?? value
        }
        return RequestFields(fields: combined, hasContentType: spelling["content-type"] != nil)
    }

    /// What a Fetch cache mode adds to a request (Fetch, "HTTP-network-or-cache fetch"): `no-cache`
    /// adds `Cache-Control: max-age=0`, `no-store` and `reload` add `Pragma: no-cache` and
    /// `Cache-Control: no-cache`, each only when the request has no such field.
    ///
    /// NetLayer has no per-call cache mode (yet); the fields are how such a request reaches the
    /// cache, and `cc-resp-immutable-stale` checks the server sees `Cache-Control: max-age=0`.
    static func fetchCacheModeFields(_ mode: String?, present: [String]) -> [(name: String, value: String)] {
        var added: [(name: String, value: String)] = []
        switch mode {
        case "no-cache":
            if !present.contains("cache-control") { added.append(("Cache-Control", "max-age=0")) }
        case "no-store", "reload":
            if !present.contains("pragma") { added.append(("Pragma", "no-cache")) }
            if !present.contains("cache-control") { added.append(("Cache-Control", "no-cache")) }
        default:
            break
        }
        return added
    }
}
