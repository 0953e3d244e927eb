import Foundation

extension Executor {
    /// Sends the call and decodes the body as the type the context asks for:
    /// `let book: Book = try await executor.execute()`. Without a type in the context,
    /// ``execute(debug:)`` is chosen and returns the raw `Data`.
    /// - Throws: ``NetLayerError``, as ``execute(model:debug:)``.
    public func execute<Model: Decodable>(debug: Bool = false) async throws -> Model {
        try await execute(model: Model.self, debug: debug)
    }

    /// Sends the call and decodes the value at `keyPath` inside the body, leaving the envelope
    /// undecoded: `execute(model: [Repo].self, at: "data.items")`, `"results[0].address"`.
    ///
    /// Keys are separated by `.`; `[n]` picks an array element. Keys are matched as the resource's
    /// decoder sees them (after its `keyDecodingStrategy`); a key that itself holds `.` or `[`
    /// cannot be named.
    /// - Throws: ``NetLayerError``: `.invalidValue` for a malformed key path (nothing is sent),
    ///   `.decodingFailed` naming the path when a key is missing or the value does not decode.
    public func execute<Model: Decodable>(model: Model.Type, at keyPath: String, debug: Bool = false)
        async throws -> Model
    {
        let steps = try KeyPathStep.parse(keyPath)
        do {
            return try await KeyPathStep.$current.withValue(steps) {
                try await execute(model: Nested<Model>.self, debug: debug).value
            }
        } catch let error as NetLayerError where error.code == .decodingFailed {
            throw Self.naming(Model.self, at: keyPath, in: error)
        }
    }

    /// Sends the call and returns the value at `keyPath` inside the body with the response (as
    /// ``response(model:debug:)`` does for the whole body); `nil` decodes the whole body.
    /// - Throws: As ``execute(model:at:debug:)``.
    func response<Model: Decodable & Sendable>(model: Model.Type, at keyPath: String?, debug: Bool)
        async throws -> Response<Model>
    {
        guard let keyPath else { return try await response(model: model, debug: debug) }
        let steps = try KeyPathStep.parse(keyPath)
        let nested: Response<Nested<Model>>
        do {
            nested = try await KeyPathStep.$current.withValue(steps) {
                try await response(model: Nested<Model>.self, debug: debug)
            }
        } catch let error as NetLayerError where error.code == .decodingFailed {
            throw Self.naming(Model.self, at: keyPath, in: error)
        }
        return Response(
            value: nested.value.value, data: nested.data, head: nested.head, sentRequest: nested.sentRequest,
            duration: nested.duration, redirects: nested.redirects, attempts: nested.attempts,
            secrets: nested.secrets)
    }

    /// A decoding failure at a key path naming the caller's type, not the wrapper that walks to it.
    private static func naming<Model: Decodable>(
        _ model: Model.Type, at keyPath: String, in error: NetLayerError
    )
        -> NetLayerError
    {
        var error = error
        error.message = error.message.replacingOccurrences(
            of: "cannot decode \(Nested<Model>.self)", with: "cannot decode \(Model.self) at \"\(keyPath)\"")
        return error
    }
}
