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
        return try decode(model, from: exchange.data)
    }

    /// Sends the call and returns the decoded value with the response, the request as sent and the
    /// duration.
    /// - Throws: ``NetLayerError``.
    public func response<Model: Decodable & Sendable>(model: Model.Type, debug: Bool = false) async throws
        -> Response<Model>
    {
        let exchange = try await exchange(debug: debug)
        let value = try decode(model, from: exchange.data)
        return Response(
            value: value, data: exchange.data, httpResponse: exchange.response, request: exchange.request,
            duration: exchange.duration)
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
        get throws { CurlDescription.make(try prepare(), redaction: resource.options.redaction) }
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
    }

    private func exchange(debug: Bool) async throws(NetLayerError) -> Exchange {
        let prepared = try prepare()
        let log = (debug || resource.options.debug) ? RequestLog(resource.options) : nil
        if !resource.rateLimiter.isUnlimited {
            do { try await resource.rateLimiter.acquire() } catch { throw .cancelled }
        }
        log?.request(prepared)
        let start = ContinuousClock.now
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await resource.transport.send(
                prepared.urlRequest, timeouts: Timeouts(idle: timeout, total: resourceTimeout))
        } catch {
            let failure = mapTransportError(error, prepared: prepared)
            log?.failure(prepared, error: failure, duration: .now - start)
            throw failure
        }
        let duration = ContinuousClock.now - start
        log?.response(response, data: data, duration: duration)
        guard resource.options.validation.accepts(response) else {
            throw .unacceptableStatus(response, body: data, method: method)
        }
        return Exchange(data: data, response: response, request: prepared.urlRequest, duration: duration)
    }

    private func mapTransportError(_ error: any Error, prepared: PreparedRequest) -> NetLayerError {
        if let error = error as? NetLayerError { return error }
        if error is CancellationError { return .cancelled }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return .cancelled
            case .timedOut:
                var failure = NetLayerError.timedOut(
                    "the session's own timeout elapsed (\(urlError.localizedDescription))")
                failure.urlError = urlError
                return failure
            default: return .transport(urlError, method: method, url: prepared.url)
            }
        }
        return .transport(other: error, method: method)
    }

    private func decode<Model: Decodable>(_ model: Model.Type, from data: Data) throws(NetLayerError) -> Model
    {
        if let empty = Empty() as? Model { return empty }
        if let raw = data as? Model { return raw }
        if Model.self == String.self, let text = String(data: data, encoding: .utf8) as? Model { return text }
        do {
            return try resource.options.decoder.decode(Model.self, from: data)
        } catch {
            throw .decodingFailed(error, type: Model.self, body: data)
        }
    }
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
