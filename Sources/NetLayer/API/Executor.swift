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
    /// What the call sends (built into a request by ``prepare()``).
    var spec: CallSpec
    /// How the call runs: its policies, validation and progress listeners.
    var options: CallOptions

    /// The service.
    public var resource: Resource { spec.resource }
    /// The method.
    public var method: HTTPMethod { spec.method }
    /// The path template (target path plus sub-path), before tokens are filled.
    public var path: String { spec.path }

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
            attempts: call.attempts, record: call.record,
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

    /// Builds the request (see ``CallSpec/prepare()``).
    func prepare() throws(NetLayerError) -> PreparedRequest { try spec.prepare() }

    func redactor(for prepared: PreparedRequest) -> Redactor {
        Redactor(prepared, pathParts: spec.pathParts, redaction: resource.options.redaction)
    }

    /// Prepares the call and sends it through its pipeline; the final head is validated.
    /// - Parameters:
    ///   - streams: The caller reads the body as it arrives.
    ///   - validation: Default: the call's, the target's or the resource's.
    ///   - adjust: Changes the prepared request before it is sent (a download's `Range`).
    ///   - collectLimit: A collected call's response limit.
    ///   - resumesDownload: The call asks for the rest of a partial file (its download progress
    ///     then counts the whole file, see ``ProgressReporter/resumeDownload(from:total:)``).
    ///   - owner: Keeps the record of a call that opens more than once, and ends it.
    func open(
        debug: Bool, streams: Bool, validation: Validation? = nil,
        adjust: ((inout TransportRequest) -> Void)? = nil, collectLimit: Int? = nil,
        resumesDownload: Bool = false, owner: CallOwner? = nil
    ) async throws(NetLayerError) -> OpenedCall {
        var prepared = try prepare()
        adjust?(&prepared.request)
        return try await CallRunner.open(
            spec, options: options, prepared: prepared, debug: debug, streams: streams,
            validation: validation, collectLimit: collectLimit, resumesDownload: resumesDownload,
            owner: owner)
    }

    /// Sends and reads the whole body, at most the resource's ``ResourceOptions/maximumResponseSize``.
    func exchange(debug: Bool) async throws(NetLayerError) -> Exchange {
        defer { options.progressEnded?() }
        guard let limit = resource.options.maximumResponseSize.map({ max(0, $0) }) else {
            return try await CallRunner.collect(open(debug: debug, streams: false))
        }
        // Read as it arrives, so the transfer stops at the limit instead of after the whole body.
        do {
            return try await CallRunner.collect(
                open(debug: debug, streams: true, collectLimit: limit), upTo: limit)
        } catch {
            throw error.code == .responseTooLarge ? error.explainingLimit(limit) : error
        }
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
            failure.metrics = exchange.record.metrics
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
