import Foundation

/// Turns an unacceptable response into the service's own error, so callers catch `GitHubError`
/// rather than decode it from a ``NetLayerError`` in every target method.
///
/// ```swift
/// // On the resource, for every call of the service:
/// super.init(protocol: .https, domain: "api.github.com",
///            options: ResourceOptions(errorMapping: .decoding(GitHubError.self)))
/// // Or on one target (it wins over the resource's):
/// override var errorMapping: ErrorMapping? { .decoding(UploadError.self) }
/// ```
///
/// A mapping sees only failures that carry a response: ``NetLayerError/Code/unacceptableStatus``
/// and ``NetLayerError/Code/unacceptableContentType`` (status, headers and body are on the error).
/// It runs wherever such an error is thrown: `execute`, `response`, `stream`, `lines`, `events`
/// (also after a reconnection), `download`. What it returns is thrown instead; `nil` keeps the
/// ``NetLayerError``. The completion-handler variant, whose `Result` is typed, delivers the
/// ``NetLayerError`` with the mapped error in ``NetLayerError/serviceError``.
public struct ErrorMapping: Sendable {
    /// The mapping; the decoder is the resource's.
    let transform: @Sendable (NetLayerError, JSONDecoder) -> (any Error)?

    /// A mapping by closure.
    /// - Parameter transform: Returns the error to throw, or `nil` to throw the ``NetLayerError``.
    ///   Runs on the calling task; keep it quick and free of I/O.
    public init(_ transform: @escaping @Sendable (NetLayerError) -> (any Error)?) {
        self.transform = { error, _ in transform(error) }
    }

    init(transform: @escaping @Sendable (NetLayerError, JSONDecoder) -> (any Error)?) {
        self.transform = transform
    }

    /// Decodes the body of an unacceptable response as `type` and throws that. A body that is
    /// empty or does not decode keeps the ``NetLayerError`` (so an HTML error page from a proxy
    /// still says what happened).
    /// - Parameters:
    ///   - type: The service's error body, `Decodable` and `Error`.
    ///   - decoder: Default `nil`: the resource's ``ResourceOptions/decoder``.
    public static func decoding<Failure: Error & Decodable>(
        _ type: Failure.Type, decoder: JSONDecoder? = nil
    ) -> ErrorMapping {
        ErrorMapping(transform: { error, resourceDecoder in
            guard let body = error.body, !body.isEmpty else { return nil }
            return try? (decoder ?? resourceDecoder).decode(Failure.self, from: body)
        })
    }

    /// The error to throw for `error`: the mapped one, or `error` itself when the mapping does
    /// not apply or returns `nil`.
    func apply(to error: NetLayerError, decoder: JSONDecoder) -> (any Error)? {
        guard error.code == .unacceptableStatus || error.code == .unacceptableContentType else { return nil }
        return transform(error, decoder)
    }
}

extension Executor {
    /// `error` as the caller sees it: mapped by the call's ``ErrorMapping`` when it is an
    /// unacceptable response, else unchanged.
    func mapped(_ error: any Error) -> any Error {
        guard let errorMapping = options.errorMapping, let failure = error as? NetLayerError,
            let service = errorMapping.apply(to: failure, decoder: resource.options.decoder)
        else { return error }
        return service
    }

    /// Runs `body`, throwing any failure as ``mapped(_:)`` makes it.
    @inline(__always)
    func mappingErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch {
            throw mapped(error)
        }
    }

    /// `next` with its failures mapped, for the streams a call returns.
    func mappingErrors<Element: Sendable>(
        of next: @escaping @Sendable () async throws -> Element?
    ) -> @Sendable () async throws -> Element? {
        guard options.errorMapping != nil else { return next }
        let executor = self
        return {
            do {
                return try await next()
            } catch {
                throw executor.mapped(error)
            }
        }
    }
}
