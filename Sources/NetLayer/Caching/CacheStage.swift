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
                    cache.invalidate(uri: CacheKey.uri(for: url))
                }
            }
            return response
        }
        let fields = request.headerFields
        if !context.collects || Self.bypassingFields.contains(where: { fields[$0] != nil }) {
            return try await next(request, context)
        }
        let redaction = context.call?.resource.options.redaction ?? .default
        let key = CacheKey(url: request.url, headers: fields, redaction: redaction, salt: .process)
        let requestTime = Date()
        let variants = cache.variants(of: key)
        var validate: (entries: [HTTPCache.Entry], staleIfError: Double?)?
        var detail = variants.isEmpty ? "uri-miss" : "vary-miss"
        for entry in variants {
            guard let reuse = entry.stored.reuse(for: fields, at: requestTime) else { continue }
            switch reuse {
            case .fresh(let timeToLive):
                return Self.serve(entry, request: request, at: requestTime, status: "hit; ttl=\(Self.seconds(timeToLive))")
            case .staleAcceptedByRequest:
                return Self.serve(entry, request: request, at: requestTime, status: "hit; fwd=stale")
            case .gatewayTimeout:
                return Self.gatewayTimeout(request)
            case .staleWhileRevalidate:
                // Validated now: a background revalidation is not an attempt of any call yet.
                validate = ([entry], nil)
            case .mustValidate(let window):
                validate = ([entry], window)
            }
            detail = "stale"
            break
        }
        if validate == nil, RequestCacheDirectives(fields).onlyIfCached { return Self.gatewayTimeout(request) }
        var sent = request
        if let validate {
            for (name, value) in CacheValidation.conditionalHeaders(for: validate.entries.map(\.stored.headers)) {
                sent.headerFields.set(name, value)
            }
        }
        let response: TransportResponse
        do {
            response = try await next(sent, context)
        } catch {
            if let validate, let entry = validate.entries.first, validate.staleIfError != nil,
                Self.isNetworkFailure(error)
            {
                return Self.serve(entry, request: request, at: Date(), status: "fwd=stale; detail=stale-if-error")
            }
            throw error
        }
        let status = response.head.statusCode
        let responseTime = Date()
        if let validate {
            if status == 304 {
                response.body.cancel()
                return freshen(
                    key, validate.entries, with: response.head, request: request, requestTime: requestTime,
                    responseTime: responseTime)
            }
            if let entry = validate.entries.first, validate.staleIfError != nil, Self.errorStatuses.contains(status) {
                response.body.cancel()
                return Self.serve(entry, request: request, at: responseTime, status: "fwd=stale; fwd-status=\(status)")
            }
        }
        guard method == .get else { return Self.marked(response, "fwd=\(detail); fwd-status=\(status)") }
        let decision = StoredResponse.make(
            method: method, requestHeaders: fields, status: status, responseHeaders: response.head.headerFields,
            requestTime: requestTime, responseTime: responseTime)
        guard case .store(let stored) = decision else {
            return Self.marked(response, "fwd=\(detail); fwd-status=\(status)")
        }
        if let length = response.body.expectedLength, length > Int64(cache.maximumEntryBytes) {
            return Self.marked(response, "fwd=\(detail); fwd-status=\(status)")
        }
        let marked = Self.marked(response, "fwd=\(detail); fwd-status=\(status); stored")
        return TransportResponse(
            head: marked.head,
            body: StoringBody.wrap(response.body, limit: cache.maximumEntryBytes) { [cache] body in
                cache.store(HTTPCache.Entry(stored: stored, body: body), under: key)
            })
    }

    /// The stored responses a 304 selects, freshened and served (§4.3.4); when it selects none,
    /// the first candidate is served as it was stored.
    private func freshen(
        _ key: CacheKey, _ entries: [HTTPCache.Entry], with head: ResponseHead, request: TransportRequest,
        requestTime: Date, responseTime: Date
    ) -> TransportResponse {
        let notModified = head.headerFields
        let selected = Set(
            CacheValidation.selectedForUpdate(by: notModified, among: entries.map(\.stored.headers)).map {
                entries[$0].stored
            })
        var served = entries.first
        cache.update(key) { entry in
            guard selected.contains(entry.stored) else { return nil }
            var updated = entry
            updated.stored = entry.stored.freshened(
                by: notModified, requestTime: requestTime, responseTime: responseTime)
            if served?.stored == entry.stored { served = updated }
            return updated
        }
        guard let served else { return Self.gatewayTimeout(request) }
        return Self.serve(served, request: request, at: responseTime, status: "fwd=stale; fwd-status=304")
    }

    // MARK: Answers made here

    /// `entry` as the answer to `request` at `now`: its fields with `Age`, and its body (none for
    /// HEAD), marked with `status` in `Cache-Status`.
    static func serve(_ entry: HTTPCache.Entry, request: TransportRequest, at now: Date, status: String)
        -> TransportResponse
    {
        var fields = entry.stored.servedHeaders(at: now)
        fields.append("Cache-Status", "NetLayer; " + status)
        let body = request.method == .head ? Data() : entry.body
        return TransportResponse(
            head: ResponseHead(statusCode: entry.stored.status, headerFields: fields, url: request.url),
            body: ResponseBody(body))
    }

    /// `only-if-cached` without a usable entry: 504 (§5.2.1.7).
    static func gatewayTimeout(_ request: TransportRequest) -> TransportResponse {
        var fields = HeaderFields()
        fields.append("Content-Length", "0")
        fields.append("Cache-Status", "NetLayer; fwd=miss; detail=only-if-cached")
        return TransportResponse(
            head: ResponseHead(statusCode: 504, headerFields: fields, url: request.url), body: ResponseBody(Data()))
    }

    /// `response` with `Cache-Status: NetLayer; <status>` added.
    static func marked(_ response: TransportResponse, _ status: String) -> TransportResponse {
        var fields = response.head.headerFields
        fields.append("Cache-Status", "NetLayer; " + status)
        var head = ResponseHead(statusCode: response.head.statusCode, headerFields: fields, url: response.head.url)
        head.httpVersion = response.head.httpVersion
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
    static let bypassingFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]
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
    static func wrap(_ body: ResponseBody, limit: Int, store: @escaping @Sendable (Data) -> Void)
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
        let store: @Sendable (Data) -> Void

        func makeAsyncIterator() -> Iterator {
            Iterator(inner: body.makeAsyncIterator(), limit: limit, store: store)
        }

        struct Iterator: AsyncIteratorProtocol {
            var inner: ResponseBody.Iterator
            let limit: Int
            let store: @Sendable (Data) -> Void
            var copy: Data? = Data()

            mutating func next() async throws -> Data? {
                guard let chunk = try await inner.next() else {
                    if let copy { store(copy) }
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
