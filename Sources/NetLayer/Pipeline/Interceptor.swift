/// Code that runs around every call of a resource, target or single call: it may change the
/// request, inspect or replace the response, call `next` again, or throw.
///
/// Interceptors form one onion (DESIGN §15): the resource's are outermost, then the target's, then
/// the call's; each runs in the order of its array. Inside them sit the resource's
/// ``Authenticator`` and then admission (the concurrency slot, pauses the server asked for, and
/// every rate limit), redirects and the transport, so every request that reaches the server waited
/// for the limits. The built-in ``RetryPolicy`` wraps the whole onion, so interceptors see every
/// attempt.
///
/// ```swift
/// struct RequestID: Interceptor {
///     func intercept(
///         _ request: TransportRequest, context: InterceptorContext,
///         next: @Sendable (TransportRequest) async throws -> TransportResponse
///     ) async throws -> TransportResponse {
///         var request = request
///         try request.headerFields.setValue(UUID().uuidString, for: "X-Request-ID")
///         return try await next(request)
///     }
/// }
/// ```
///
/// `next` returns once the final response head arrived (after redirects); its body is unread.
/// An interceptor that drops a response (to call `next` again) should `cancel()` its body. A
/// response with a status the validation rejects is returned, not thrown: validation runs after
/// the whole chain. `next` throws ``NetLayerError`` for transport failures and timeouts; anything
/// else an interceptor throws reaches the caller as ``NetLayerError/Code/interceptorFailed``.
public protocol Interceptor: Sendable {
    /// Handles one attempt of a call.
    /// - Parameters:
    ///   - request: The request so far; header changes go through
    ///     ``HeaderFields/setValue(_:for:)``, which applies the same checks as every header.
    ///   - context: What the call is and which attempt this is.
    ///   - next: The rest of the chain; call it zero or more times.
    /// - Returns: The response for the caller (validation and decoding follow).
    /// - Throws: Anything; it ends the call (a retry policy outside may try again).
    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse
}

/// What an ``Interceptor`` knows about the call besides the request.
public struct InterceptorContext: Sendable {
    /// The path template the call was made with, tokens unfilled (`/users/:id`): a stable name
    /// for metrics and logs that holds no path-part values.
    public let pathTemplate: String
    /// Which attempt of the built-in ``RetryPolicy`` this is, from 1. A replay after an
    /// ``Authentication`` refresh happens inside the interceptors and does not count here (it
    /// does in ``Response/attempts``, which counts every request that reached the transport).
    public internal(set) var attempt: Int
    /// Whether the call may be sent more than once: its method is idempotent (GET, HEAD, PUT,
    /// DELETE, OPTIONS, TRACE) or the call was marked with ``Executor/idempotent(_:)``.
    public let isIdempotent: Bool
    /// The idle timeout and total deadline of the call, the progress sink, and whether the body
    /// streams to the caller.
    public internal(set) var transport: TransportContext
    /// When the call's total deadline ends, if it has one.
    public let deadline: ContinuousClock.Instant?
    /// What the pipeline's stages share about the call; `nil` in a context made for testing an
    /// interceptor on its own.
    var call: CallRecord? = nil
    /// Set for the hops after a redirect: the transport stage counts an attempt only on its
    /// first hop.
    var isFollowUpHop = false
    /// The consumer collects the whole body (`execute`, `response`, the decoding verbs), rather
    /// than streaming or downloading it: only such calls use the resource's cache.
    var collects = false
    /// The call's use of the resource's cache.
    var cachePolicy = CachePolicy.standard

    /// Creates a context (for testing an interceptor on its own).
    /// - Parameters:
    ///   - pathTemplate: Default `""`.
    ///   - attempt: Default `1`.
    ///   - isIdempotent: Default `true`.
    ///   - transport: Default `TransportContext()`.
    ///   - deadline: Default `nil`.
    public init(
        pathTemplate: String = "", attempt: Int = 1, isIdempotent: Bool = true,
        transport: TransportContext = TransportContext(), deadline: ContinuousClock.Instant? = nil
    ) {
        self.pathTemplate = pathTemplate
        self.attempt = attempt
        self.isIdempotent = isIdempotent
        self.transport = transport
        self.deadline = deadline
    }
}
