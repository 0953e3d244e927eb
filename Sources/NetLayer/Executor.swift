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
    var resourceTimeout: Duration?
    /// The total deadline given to this call itself (not inherited from the resource): an event
    /// stream, meant to stay open, honours only this one.
    var callResourceTimeout: Duration? = nil
    let redirectPolicy: RedirectPolicy
    /// Receives upload and download progress; set by ``progress(_:)``.
    var progressHandler: (@Sendable (TransferProgress) -> Void)? = nil
    /// Called once when a call ends, however it ends; set by ``progressUpdates()``.
    var progressEnded: (@Sendable () -> Void)? = nil

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
            value: value, data: exchange.data, head: exchange.head, sentRequest: exchange.request,
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

    /// The request this call would send, as a `URLRequest`, built without sending it. A file
    /// body appears as `httpBodyStream` of a whole file, or not at all for ranges and multipart
    /// with files (see ``transportRequest``).
    /// - Throws: ``NetLayerError`` when the request cannot be built.
    public var urlRequest: URLRequest {
        get throws {
            let prepared = try prepare()
            return prepared.request.urlRequest(idleTimeout: prepared.timeouts.idle)
        }
    }

    /// The request value this call would hand to the transport, built without sending it.
    /// - Throws: ``NetLayerError`` when the request cannot be built.
    public var transportRequest: TransportRequest {
        get throws { try prepare().request }
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
