import Foundation

/// The resource's ``HTTPCache`` as a stage, just outside the transport stage: inside the
/// redirects (each hop is looked up and stored on its own, as a browser's cache does), the
/// authenticator and the cookie jar, so that the credentials a request really carries choose its
/// partition.
///
/// A GET (or a HEAD, answered from a stored GET) is served from a fresh entry, or sent as a
/// conditional request whose 304 freshens the entry; a storable answer is stored as the consumer
/// reads it. Calls that stream (`stream()`, `events()`, `download(to:)`) and requests that carry
/// their own validators or a `Range` pass by the cache.
struct CacheStage: Stage {
    let cache: HTTPCache

    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        let method = request.method
        guard method == .get || method == .head else {
            let response = try await next(request, context)
            if !Self.safeMethods.contains(method.rawValue) {
                for url in Invalidation.invalidatedURIs(
                    method: method, status: response.head.statusCode, requestURL: request.url,
                    responseHeaders: response.head.headerFields)
                {
                    await cache.invalidate(cache.key(url: url, headers: HeaderFields(), redaction: .default))
                }
            }
            return response
        }
        var fields = request.headerFields
        if !context.collects || context.cachePolicy.bypasses
            || Self.bypassingFields.contains(where: { fields[$0] != nil })
        {
            return try await next(request, context)
        }
        // The call's policy decides as request directives would, without being sent.
        if let directives = context.cachePolicy.directives { fields.append("Cache-Control", directives) }
        let redaction = context.call?.resource.options.redaction ?? .default
        let key = cache.key(url: request.url, headers: fields, redaction: redaction)
        let requestTime = Date()
        let variants = await cache.variants(of: key)
        if let range = fields["Range"] {
            // A single range of a fresh, complete stored response is answered from it (§3.4);
            // anything else goes to the server as it is, and its answer is not stored.
            for entry in variants {
                guard case .fresh? = entry.stored.reuse(for: fields, at: requestTime),
                    entry.stored.status == 200,
                    let part = ByteRange(range, length: entry.body.count)
                else { continue }
                return Self.serve(entry, part: part, request: request, at: requestTime)
            }
            return try await next(request, context)
        }
        var validate: (entries: [HTTPCacheEntry], staleIfError: Double?)?
        var detail = variants.isEmpty ? "uri-miss" : "vary-miss"
        for entry in variants {
            guard let reuse = entry.stored.reuse(for: fields, at: requestTime) else { continue }
            switch reuse {
            case .fresh(let timeToLive):
                return Self.serve(
                    entry, request: request, at: requestTime, status: "hit; ttl=\(Self.seconds(timeToLive))")
            case .staleAcceptedByRequest:
                return Self.serve(entry, request: request, at: requestTime, status: "hit; fwd=stale")
            case .gatewayTimeout:
                return Self.gatewayTimeout(request)
            case .staleWhileRevalidate:
                if cache.beginRevalidation(of: key) {
                    let cache = self.cache
                    Task {
                        defer { cache.endRevalidation(of: key) }
                        await Self.revalidate(
                            entry, key: key, request: request, context: context, next: next, cache: cache)
                    }
                }
                return Self.serve(entry, request: request, at: requestTime, status: "hit; fwd=stale")
            case .mustValidate(let window):
                validate = ([entry], window)
            }
            detail = entry.stored.isFresh(at: requestTime) ? "request" : "stale"
            break
        }
        if validate == nil, RequestCacheDirectives(fields).onlyIfCached {
            return Self.gatewayTimeout(request)
        }
        var sent = request
        if let validate {
            for (name, value) in CacheValidation.conditionalHeaders(
                for: validate.entries.map(\.stored.headers))
            {
                sent.headerFields.set(name, value)
            }
        }
        let response: TransportResponse
        do {
            response = try await next(sent, context)
        } catch {
            if let validate, let entry = validate.entries.first, Self.isNetworkFailure(error),
                validate.staleIfError != nil || Self.mayServeDisconnected(entry, request: fields)
            {
                return Self.serve(
                    entry, request: request, at: Date(), status: "fwd=stale; detail=disconnected")
            }
            if let validate, let entry = validate.entries.first, Self.isNetworkFailure(error),
                Self.forbidsStale(entry)
            {
                // §5.2.2.2: disconnected, with a response that must not be served stale: an error
                // response (504), not the stored one; its body says why.
                return Self.gatewayTimeout(request, detail: "disconnected", reason: error)
            }
            throw error
        }
        let status = response.head.statusCode
        let responseTime = Date()
        if let validate {
            if status == 304 {
                response.body.cancel()
                return await freshen(
                    key, validate.entries, with: response.head, request: request,
                    stores: !RequestCacheDirectives(fields).noStore, requestTime: requestTime,
                    responseTime: responseTime)
            }
            if let entry = validate.entries.first, validate.staleIfError != nil,
                Self.errorStatuses.contains(status)
            {
                response.body.cancel()
                return Self.serve(
                    entry, request: request, at: responseTime, status: "fwd=stale; fwd-status=\(status)",
                    setCookies: CookieStage.setCookieValues(of: response.head))
            }
        }
        if method == .head, status == 200, !RequestCacheDirectives(fields).noStore {
            await updateFromHead(
                key, variants, with: response.head, request: fields, requestTime: requestTime)
        }
        guard method == .get else { return Self.marked(response, "fwd=\(detail); fwd-status=\(status)") }
        let decision = StoredResponse.make(
            method: method, requestHeaders: fields, status: status,
            responseHeaders: response.head.headerFields,
            requestTime: requestTime, responseTime: responseTime)
        guard case .store(let decided) = decision else {
            return Self.marked(response, "fwd=\(detail); fwd-status=\(status)")
        }
        let stored = decided.withoutCredentialFields(redaction: redaction)
        if let length = response.body.expectedLength, length > Int64(cache.maximumEntryBytes) {
            return Self.marked(response, "fwd=\(detail); fwd-status=\(status)")
        }
        let marked = Self.marked(response, "fwd=\(detail); fwd-status=\(status); stored")
        return TransportResponse(
            head: marked.head,
            body: StoringBody.wrap(response.body, limit: cache.maximumEntryBytes) { [cache] body in
                await cache.store(HTTPCacheEntry(stored: stored, body: body), under: key)
            })
    }

    /// The stored responses a 304 selects, freshened and served (§4.3.4); when it selects none,
    /// the first candidate is served as it was stored.
    private func freshen(
        _ key: HTTPCacheKey, _ entries: [HTTPCacheEntry], with head: ResponseHead, request: TransportRequest,
        stores: Bool, requestTime: Date, responseTime: Date
    ) async -> TransportResponse {
        let notModified = head.headerFields
        let selected = Set(
            CacheValidation.selectedForUpdate(by: notModified, among: entries.map(\.stored.headers)))
        var served = entries.first
        for (index, entry) in entries.enumerated() where selected.contains(index) {
            let updated = HTTPCacheEntry(
                stored: entry.stored.freshened(
                    by: notModified, requestTime: requestTime, responseTime: responseTime),
                body: entry.body)
            if index == 0 { served = updated }
            // A request's `no-store` (§5.2.1.5): the merged answer is served, nothing is kept.
            if stores { await cache.store(updated, under: key, replacing: entry) }
        }
        guard let served else { return Self.gatewayTimeout(request) }
        return Self.serve(
            served, request: request, at: responseTime, status: "fwd=stale; fwd-status=304",
            setCookies: CookieStage.setCookieValues(of: head))
    }

    /// A 200 answer to HEAD updates the stored GET responses the request could have chosen
    /// (§4.3.5): those whose validators (and length) it matches take its fields and freshness, as
    /// from a 304; the others are stale from now on (kept for `max-stale` and `stale-if-error`).
    private func updateFromHead(
        _ key: HTTPCacheKey, _ entries: [HTTPCacheEntry], with head: ResponseHead, request: HeaderFields,
        requestTime: Date
    ) async {
        let responseTime = Date()
        for entry in entries where entry.stored.reuse(for: request, at: responseTime) != nil {
            let stored =
                CacheValidation.headResponseFreshens(head.headerFields, stored: entry.stored.headers)
                ? entry.stored.freshened(
                    by: head.headerFields, requestTime: requestTime, responseTime: responseTime)
                : entry.stored.markedStale()
            await cache.store(HTTPCacheEntry(stored: stored, body: entry.body), under: key, replacing: entry)
        }
    }

    /// Whether a stale `entry` may answer while the server cannot be reached (§4.2.4: a cache
    /// that is disconnected may serve stale), unless the response forbids serving it stale
    /// (`must-revalidate`, `no-cache`) or the request asked for validation (`no-cache`, `max-age`).
    static func mayServeDisconnected(_ entry: HTTPCacheEntry, request: HeaderFields) -> Bool {
        let response = ResponseCacheDirectives(entry.stored.headers)
        let asked = RequestCacheDirectives(request)
        return !response.mustRevalidate && response.noCache == nil && !asked.noCache && asked.maxAge == nil
    }

    /// The background revalidation of a stale entry served under `stale-while-revalidate`
    /// (RFC 5861 §3): a conditional request through the rest of the pipeline; a 304 freshens the
    /// entry, a storable answer replaces it (its body read here, up to the entry bound), and a
    /// failure leaves it as it was.
    static func revalidate(
        _ entry: HTTPCacheEntry, key: HTTPCacheKey, request: TransportRequest, context: InterceptorContext,
        next: @escaping Pipeline.Next, cache: HTTPCache
    ) async {
        // A revalidation that ended between this call's lookup and its `beginRevalidation` has
        // replaced the entry already: nothing is left to do (one revalidation per entry).
        guard await cache.variants(of: key).contains(where: { $0.stored == entry.stored }) else { return }
        var sent = request
        for (name, value) in CacheValidation.conditionalHeaders(for: [entry.stored.headers]) {
            sent.headerFields.set(name, value)
        }
        let requestTime = Date()
        guard let response = try? await next(sent, context) else { return }
        let responseTime = Date()
        let head = response.head
        if head.statusCode == 304 {
            response.body.cancel()
            let notModified = head.headerFields
            guard !CacheValidation.selectedForUpdate(by: notModified, among: [entry.stored.headers]).isEmpty,
                !RequestCacheDirectives(request.headerFields).noStore  // §5.2.1.5
            else { return }
            let freshened = entry.stored.freshened(
                by: notModified, requestTime: requestTime, responseTime: responseTime)
            await cache.store(
                HTTPCacheEntry(stored: freshened, body: entry.body), under: key, replacing: entry)
            return
        }
        let decision = StoredResponse.make(
            method: request.method, requestHeaders: request.headerFields, status: head.statusCode,
            responseHeaders: head.headerFields, requestTime: requestTime, responseTime: responseTime)
        guard case .store(let stored) = decision,
            let body = try? await response.body.collect(upTo: cache.maximumEntryBytes)
        else {
            response.body.cancel()
            return
        }
        let redaction = context.call?.resource.options.redaction ?? .default
        await cache.store(
            HTTPCacheEntry(stored: stored.withoutCredentialFields(redaction: redaction), body: body),
            under: key)
    }

    // MARK: Answers made here

    /// The `part` of `entry`'s body as a 206 answer to `request` (§3.4, RFC 9110 §14.4).
    static func serve(_ entry: HTTPCacheEntry, part: ByteRange, request: TransportRequest, at now: Date)
        -> TransportResponse
    {
        var fields = entry.stored.servedHeaders(at: now)
        let slice = Data(entry.body.dropFirst(part.lower).prefix(part.upper - part.lower + 1))
        fields.set("Content-Range", "bytes \(part.lower)-\(part.upper)/\(entry.body.count)")
        fields.set("Content-Length", String(slice.count))
        fields.append("Cache-Status", "NetLayer; hit")
        var head = ResponseHead(statusCode: 206, headerFields: fields, url: request.url)
        head.setCookiesFromServer = []
        return TransportResponse(head: head, body: ResponseBody(request.method == .head ? Data() : slice))
    }

    /// `entry` as the answer to `request` at `now`: its fields with `Age`, and its body (none for
    /// HEAD), marked with `status` in `Cache-Status`; `setCookies` are the `Set-Cookie` values the
    /// server sent in this exchange, for the cookie jar (none for a hit).
    static func serve(
        _ entry: HTTPCacheEntry, request: TransportRequest, at now: Date, status: String,
        setCookies: [String] = []
    ) -> TransportResponse {
        var fields = entry.stored.servedHeaders(at: now)
        fields.append("Cache-Status", "NetLayer; " + status)
        let body = request.method == .head ? Data() : entry.body
        var head = ResponseHead(statusCode: entry.stored.status, headerFields: fields, url: request.url)
        head.setCookiesFromServer = setCookies
        return TransportResponse(head: head, body: ResponseBody(body))
    }

    /// A 504 made by the cache: `only-if-cached` without a usable entry (§5.2.1.7), or a server
    /// that cannot be reached for an entry that must not be served stale (§5.2.2.2; the body
    /// carries the transport's error message).
    static func gatewayTimeout(
        _ request: TransportRequest, detail: String = "only-if-cached", reason: (any Error)? = nil
    ) -> TransportResponse {
        let body =
            reason.map { Data("the server could not be reached: \(Self.message(of: $0))".utf8) } ?? Data()
        var fields = HeaderFields()
        fields.append("Content-Length", String(body.count))
        if !body.isEmpty { fields.append("Content-Type", "text/plain; charset=utf-8") }
        fields.append("Cache-Status", "NetLayer; fwd=miss; detail=\(detail)")
        return TransportResponse(
            head: ResponseHead(statusCode: 504, headerFields: fields, url: request.url),
            body: ResponseBody(body))
    }

    /// An error's message: a ``NetLayerError``'s own (already redacted), else its description.
    static func message(of error: any Error) -> String {
        (error as? NetLayerError)?.message ?? String(describing: error)
    }

    /// Whether a stored response forbids serving it stale (`must-revalidate`, `no-cache`).
    static func forbidsStale(_ entry: HTTPCacheEntry) -> Bool {
        let response = ResponseCacheDirectives(entry.stored.headers)
        return response.mustRevalidate || response.noCache != nil
    }

    /// `response` with `Cache-Status: NetLayer; <status>` added.
    static func marked(_ response: TransportResponse, _ status: String) -> TransportResponse {
        var fields = response.head.headerFields
        fields.append("Cache-Status", "NetLayer; " + status)
        var head = ResponseHead(
            statusCode: response.head.statusCode, headerFields: fields, url: response.head.url)
        head.httpVersion = response.head.httpVersion
        // Read from the transport's head: URLSession's joins repeated `Set-Cookie` fields, which
        // only its own head can split again.
        head.setCookiesFromServer =
            response.head.setCookiesFromServer ?? CookieStage.setCookieValues(of: response.head)
        return TransportResponse(head: head, body: response.body)
    }

    /// Whole seconds, for `ttl`.
    static func seconds(_ value: Double) -> Int {
        value.isFinite ? Int(max(-Double(Int32.max), min(Double(Int32.max), value)).rounded(.down)) : 0
    }

    /// Methods that never invalidate (§4.4).
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]
    /// Request fields that make the caller the one validating or asking for a part: the cache
    /// neither answers nor stores such a request.
    static let bypassingFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range",
    ]
    /// Statuses that let `stale-if-error` serve the stored response (RFC 5861 §4).
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Whether `error` is the network failing (not the caller cancelling or a limit).
    static func isNetworkFailure(_ error: any Error) -> Bool {
        guard let error = error as? NetLayerError else { return true }
        return error.code == .transport || error.code == .timedOut
    }
}

/// A response body that keeps a copy of what the consumer reads and hands it to `store` when it
/// ends whole within `limit` bytes; a longer, failed or abandoned body is not stored.
enum StoringBody {
    static func wrap(_ body: ResponseBody, limit: Int, store: @escaping @Sendable (Data) async -> Void)
        -> ResponseBody
    {
        ResponseBody(
            chunks: Chunks(body: body, limit: limit, store: store), expectedLength: body.expectedLength,
            onCancel: { body.cancel() })
    }

    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let body: ResponseBody
        let limit: Int
        let store: @Sendable (Data) async -> Void

        func makeAsyncIterator() -> Iterator {
            Iterator(inner: body.makeAsyncIterator(), limit: limit, store: store)
        }

        struct Iterator: AsyncIteratorProtocol {
            var inner: ResponseBody.Iterator
            let limit: Int
            let store: @Sendable (Data) async -> Void
            var copy: Data? = Data()

            mutating func next() async throws -> Data? {
                guard let chunk = try await inner.next() else {
                    if let copy { await store(copy) }
                    copy = nil
                    return nil
                }
                if let count = copy?.count {
                    if count + chunk.count <= limit { copy?.append(chunk) } else { copy = nil }
                }
                return chunk
            }
        }
    }
}

/// One satisfiable byte range of a representation of `length` bytes (RFC 9110 §14.1.2):
/// `bytes=a-b`, `bytes=a-` or `bytes=-n`; `nil` for anything else (several ranges, another unit,
/// a range past the end), which the cache leaves to the server.
struct ByteRange: Sendable, Hashable {
    let lower: Int
    let upper: Int

    init?(_ field: String, length: Int) {
        let text = field.trimmingCharacters(in: .whitespaces)
        guard length > 0, text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        let digits = { (part: Substring) in
            !part.isEmpty && part.count <= 18 && part.allSatisfy(\.isASCIIDigit)
        }
        if first.isEmpty {
            guard digits(last), let suffix = Int(last), suffix > 0 else { return nil }
            lower = max(0, length - suffix)
            upper = length - 1
        } else {
            guard digits(first), let start = Int(first), start < length else { return nil }
            if last.isEmpty {
                upper = length - 1
            } else {
                guard digits(last), let end = Int(last), end >= start else { return nil }
                upper = min(end, length - 1)
            }
            lower = start
        }
    }
}

extension Character {
    /// `0`…`9` only.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
