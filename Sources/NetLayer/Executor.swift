import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call, described but not yet sent. Nothing happens until an `execute` or `response` method
/// is awaited; each await sends the request anew.
///
/// Every method throws only ``NetLayerError``.
public struct Executor: Sendable {
    /// The service.
    public let resource: Resource
    /// The method.
    public let method: HTTPMethod
    /// The path template (target path plus sub-path), before tokens are filled.
    public let path: String
    /// The call's sub-path as given (already joined into ``path``); kept to name it in errors.
    let subpath: String
    let pathParts: [String: any ParamConvertible]
    let targetHeaders: Result<HeaderFields, NetLayerError>
    let targetParams: [String: ParamValue]
    let headers: [String: String]
    let params: Params
    let body: Body?
    let files: [String: FilePart]
    let encoding: ParamEncoding
    let timeout: Duration?
    let resourceTimeout: Duration?
    let redirectPolicy: RedirectPolicy

    /// Sends the call and returns the raw body.
    /// - Parameter debug: Print the request and response. Default `false` (the resource's setting
    ///   still applies).
    /// - Throws: ``NetLayerError``.
    @discardableResult
    public func execute(debug: Bool = false) async throws -> Data {
        try await exchange(debug: debug).data
    }

    /// Sends the call and decodes the body as `model` with the resource's decoder. ``Empty`` accepts
    /// any body, including none (204); `Data` returns the raw bytes and `String` the UTF-8 text.
    /// - Throws: ``NetLayerError``; `.decodingFailed` carries the coding path and body.
    public func execute<Model: Decodable>(model: Model.Type, debug: Bool = false) async throws -> Model {
        let exchange = try await exchange(debug: debug)
        return try decode(model, from: exchange)
    }

    /// Sends the call and returns the decoded value with the response, the request as sent and the
    /// duration.
    /// - Throws: ``NetLayerError``.
    public func response<Model: Decodable & Sendable>(model: Model.Type, debug: Bool = false) async throws
        -> Response<Model>
    {
        let exchange = try await exchange(debug: debug)
        let value = try decode(model, from: exchange)
        return Response(
            value: value, data: exchange.data, httpResponse: exchange.response, request: exchange.request,
            duration: exchange.duration, redirects: exchange.redirects)
    }

    /// Sends the call and returns the raw body with the response.
    /// - Throws: ``NetLayerError``.
    public func response(debug: Bool = false) async throws -> Response<Data> {
        try await response(model: Data.self, debug: debug)
    }

    /// Sends the call from a new task and calls `completion` exactly once with the decoded value or
    /// the error (`.cancelled` after ``CallHandle/cancel()``).
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func execute<Model: Decodable & Sendable>(
        model: Model.Type, debug: Bool = false,
        completion: @escaping @Sendable (Result<Model, NetLayerError>) -> Void
    ) -> CallHandle {
        CallHandle(
            task: Task {
                let result: Result<Model, NetLayerError>
                do {
                    result = .success(try await execute(model: model, debug: debug))
                } catch {
                    result = .failure(error as? NetLayerError ?? .cancelled)
                }
                completion(result)
            })
    }

    /// A runnable `curl` command for the same request, with secrets redacted as in debug output.
    /// - Throws: ``NetLayerError`` when the request cannot be built.
    public var curlDescription: String {
        get throws {
            let prepared = try prepare()
            return CurlDescription.make(prepared, redactor: redactor(for: prepared))
        }
    }

    /// The request this call would send, built without sending it.
    /// - Throws: ``NetLayerError`` when the request cannot be built.
    public var urlRequest: URLRequest {
        get throws { try prepare().urlRequest }
    }

    struct Exchange {
        var data: Data
        var response: HTTPURLResponse
        var request: URLRequest
        var duration: Duration
        var redirects: [Redirect]
        var prepared: PreparedRequest
    }

    func redactor(for prepared: PreparedRequest) -> Redactor {
        Redactor(prepared, pathParts: pathParts, redaction: resource.options.redaction)
    }

    private func exchange(debug: Bool) async throws(NetLayerError) -> Exchange {
        let prepared = try prepare()
        let log =
            (debug || resource.options.debug)
            ? RequestLog(resource.options, redactor: redactor(for: prepared)) : nil
        log?.request(prepared)
        let start = ContinuousClock.now
        var request = prepared.urlRequest
        var redirects: [Redirect] = []
        let data: Data
        let response: HTTPURLResponse
        do {
            while true {
                let (body, head) = try await send(request, timeouts: prepared.timeouts, since: start)
                guard redirectPolicy.maximum > 0,
                    let (next, redirect) = try RedirectRule.next(
                        after: request, response: head, policy: redirectPolicy)
                else {
                    (data, response) = (body, head)
                    break
                }
                if redirects.count >= redirectPolicy.maximum {
                    throw NetLayerError.tooManyRedirects(
                        redirects + [redirect], limit: redirectPolicy.maximum)
                }
                redirects.append(redirect)
                log?.redirect(redirect)
                request = next
            }
        } catch {
            var failure = mapTransportError(error, request: request, prepared: prepared)
            if failure.redirects.isEmpty { failure.redirects = redirects }
            log?.failure(prepared, error: failure, duration: .now - start)
            throw failure
        }
        let duration = ContinuousClock.now - start
        log?.response(response, data: data, duration: duration)
        guard resource.options.validation.accepts(response) else {
            let redactor = redactor(for: prepared)
            var failure = NetLayerError.unacceptableStatus(
                response, body: data, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
                redactor: redactor)
            failure.redirects = redirects
            throw failure.redacted(by: redactor)
        }
        return Exchange(
            data: data, response: response, request: request, duration: duration, redirects: redirects,
            prepared: prepared)
    }

    /// One hop: waits for the rate limits (every request the server sees counts), then sends with
    /// what is left of the total deadline.
    private func send(_ request: URLRequest, timeouts: Timeouts, since start: ContinuousClock.Instant)
        async throws -> (Data, HTTPURLResponse)
    {
        if !resource.rateLimiter.isUnlimited {
            do { try await resource.rateLimiter.acquire() } catch { throw NetLayerError.cancelled }
        }
        var hop = timeouts
        if let total = timeouts.total {
            let left = total - (ContinuousClock.now - start)
            if left <= .zero {
                throw NetLayerError.timedOut("the total deadline of \(total.formattedSeconds) elapsed")
            }
            hop.total = left
        }
        return try await resource.transport.send(request, timeouts: hop)
    }

    private func mapTransportError(_ error: any Error, request: URLRequest, prepared: PreparedRequest)
        -> NetLayerError
    {
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let redactor = redactor(for: prepared)
        let location = " (\(method) \(request.url.map { redactor.url($0) } ?? "?"))"
        let failure: NetLayerError
        if var known = error as? NetLayerError {
            if known.code == .timedOut || known.code == .tooManyRedirects || known.code == .redirectRefused {
                known.message += location
            }
            failure = known
        } else if error is CancellationError {
            failure = .cancelled
        } else if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: failure = .cancelled
            case .timedOut:
                var timedOut = NetLayerError.timedOut(
                    "the session's own timeout elapsed (\(urlError.localizedDescription))\(location)")
                timedOut.urlError = urlError
                failure = timedOut
            default: failure = .transport(urlError, method: method, url: request.url, redactor: redactor)
            }
        } else {
            failure = .transport(other: error, method: method)
        }
        return failure.redacted(by: redactor)
    }

    private func decode<Model: Decodable>(_ model: Model.Type, from exchange: Exchange) throws(NetLayerError)
        -> Model
    {
        let data = exchange.data
        if let empty = Empty() as? Model { return empty }
        // `Item?` from a 204 or an empty body is nil.
        if data.isEmpty, let optional = Model.self as? any OptionalModel.Type,
            let none = optional.nilModel as? Model
        {
            return none
        }
        if let raw = data as? Model { return raw }
        if Model.self == String.self, let text = String(data: data, encoding: .utf8) as? Model { return text }
        do {
            return try resource.options.decoder.decode(Model.self, from: data)
        } catch {
            let redactor = redactor(for: exchange.prepared)
            throw NetLayerError.decodingFailed(error, type: Model.self, body: data, redactor: redactor)
                .redacted(by: redactor)
        }
    }
}

/// Optional models, so an empty body can decode as `nil`.
protocol OptionalModel {
    static var nilModel: Self { get }
}

extension Optional: OptionalModel {
    static var nilModel: Self { nil }
}

/// Cancels a call started with a completion handler.
public struct CallHandle: Sendable {
    let task: Task<Void, Never>

    /// Cancels the call; its completion then receives ``NetLayerError/Code/cancelled`` unless it
    /// had already finished. Safe to call more than once.
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}
