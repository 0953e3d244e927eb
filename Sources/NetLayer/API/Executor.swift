import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call, described but not yet sent. Nothing happens until an `execute` or `response` method
/// is awaited; each await sends the request anew.
///
/// Every method throws ``NetLayerError``, or the service's own error for an unacceptable response
/// when an ``ErrorMapping`` is set on the target or the resource.
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
    /// The target's share of the call (its and the resource's headers, params and plain URL).
    let defaults: TargetDefaults
    /// Why every call of the target fails (see ``Target/problem``).
    let targetProblem: NetLayerError?
    let headers: [String: String]
    let params: Params
    let body: Body?
    let files: [String: FilePart]
    let placement: ParamPlacement
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
    /// The URL this call follows instead of the target's path (``Target/makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``).
    var absoluteURL: URL? = nil
    /// The target's ``ErrorMapping``, else the resource's.
    var errorMapping: ErrorMapping? = nil
    /// The target's and the call's interceptors, in that order (the resource's run outside them).
    var interceptors: [any Interceptor] = []
    /// The call's or the target's retry policy; `nil`: the resource's.
    var retryPolicy: RetryPolicy? = nil
    /// Set by ``idempotent(_:)``; `nil`: decided by the method.
    var idempotentOverride: Bool? = nil
    /// The call's or the target's validation; `nil`: the resource's.
    var validation: Validation? = nil
    /// Set while a collected call with a ``ResourceOptions/maximumResponseSize`` is sent: the
    /// retry loop then reads each attempt's body itself, up to this many bytes, so a body cut short
    /// is a failed attempt the policy may retry (the transport streams it, to stop at the limit).
    var collectLimit: Int? = nil

    /// Sends the call and returns the raw body.
    /// - Parameter debug: Print the request and response. Default `false` (the resource's setting
    ///   still applies).
    /// - Throws: ``NetLayerError``, or the mapped error of an unacceptable response (see
    ///   ``ErrorMapping``).
    @discardableResult
    public func execute(debug: Bool = false) async throws -> Data {
        try await mappingErrors { try await exchange(debug: debug).data }
    }

    /// Sends the call and decodes the body as `model` with the resource's decoder. ``Empty`` accepts
    /// any body, including none (204); `Data` returns the raw bytes and `String` the UTF-8 text.
    /// - Throws: ``NetLayerError``; `.decodingFailed` carries the coding path and body. An
    ///   unacceptable response throws the mapped error when an ``ErrorMapping`` applies.
    public func execute<Model: Decodable>(model: Model.Type, debug: Bool = false) async throws -> Model {
        try await mappingErrors { try await value(model, debug: debug) }
    }

    /// Sends and decodes; throws the unmapped error.
    @inline(__always)
    private func value<Model: Decodable>(_ model: Model.Type, debug: Bool) async throws(NetLayerError)
        -> Model
    {
        try decode(model, from: try await exchange(debug: debug))
    }

    /// Sends the call and returns the decoded value with the response, the request as sent and the
    /// duration.
    /// - Throws: ``NetLayerError``, or the mapped error of an unacceptable response (see
    ///   ``ErrorMapping``).
    public func response<Model: Decodable & Sendable>(model: Model.Type, debug: Bool = false) async throws
        -> Response<Model>
    {
        let call = try await mappingErrors { try await exchange(debug: debug) }
        let value = try decode(model, from: call)
        // Printing the response, its head or its redirects masks what the call sent.
        let secrets = CallSecrets(call.sharedPrepared)
        return Response(
            value: value, data: call.data, head: call.head.printed(with: secrets), sentRequest: call.request,
            duration: call.duration, redirects: call.redirects.printed(with: secrets),
            attempts: call.attempts,
            secrets: secrets)
    }

    /// Sends the call and returns the raw body with the response.
    /// - Throws: As ``response(model:debug:)``.
    public func response(debug: Bool = false) async throws -> Response<Data> {
        try await response(model: Data.self, debug: debug)
    }

    /// Sends the call from a new task and calls `completion` exactly once with the decoded value or
    /// the error (`.cancelled` after ``CallHandle/cancel()``). When an ``ErrorMapping`` turns an
    /// unacceptable response into the service's error, that error is in
    /// ``NetLayerError/serviceError`` (the `Result` is typed, so it cannot be the failure itself).
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func execute<Model: Decodable & Sendable>(
        model: Model.Type, debug: Bool = false,
        completion: @escaping @Sendable (Result<Model, NetLayerError>) -> Void
    ) -> CallHandle {
        CallHandle(
            task: Task {
                let result: Result<Model, NetLayerError>
                do throws(NetLayerError) {
                    result = .success(try await value(model, debug: debug))
                } catch {
                    var failure = error
                    let service = mapped(error)
                    if !(service is NetLayerError) { failure.serviceError = service }
                    result = .failure(failure)
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
        // Metatype comparisons gate the casts: a cast to a model that is none of these looks up
        // conformances at run time on every call (about 1 µs of a call, measured in place).
        if Model.self == Empty.self || Model.self == Empty?.self, let empty = Empty() as? Model {
            return empty
        }
        // `Item?` from a 204 or an empty body is nil.
        if data.isEmpty, let optional = Model.self as? any OptionalModel.Type,
            let none = optional.nilModel as? Model
        {
            return none
        }
        if Model.self == Data.self || Model.self == Data?.self, let raw = data as? Model { return raw }
        if Model.self == String.self, let text = String(data: data, encoding: .utf8) as? Model { return text }
        do {
            // JSONValue: parsed in one pass by NetLayer's own parser (JSONValue.parse).
            if Model.self == JSONValue.self,
                let value = try JSONValue.parse(data, decoder: resource.options.decoder) as? Model
            {
                return value
            }
            return try resource.options.decoder.decode(Model.self, from: data)
        } catch {
            let redactor = exchange.sharedPrepared.redactor
            let request = "\(exchange.request.method) \(redactor.url(exchange.request.url))"
            var failure = NetLayerError.decodingFailed(
                error, type: Model.self, body: data, redactor: redactor, request: request
            )
            .redacted(by: redactor)
            failure.attempts = exchange.attempts
            throw failure
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
