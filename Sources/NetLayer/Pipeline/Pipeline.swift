import Foundation

/// One step of a call's pipeline: the ``Interceptor`` shape, with the context handed on too (a
/// retry tells the steps inside it which attempt this is; a redirect which hop).
///
/// Built-in stages and users' interceptors are stages alike (an interceptor runs as an
/// ``InterceptorStage``), so a call is one list, run outer to inner, ending in the
/// ``TransportStage``.
protocol Stage: Sendable {
    /// Handles one pass of the request through this stage; `next` is the rest of the pipeline.
    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
}

/// The ordered stages of a call, decided once per resource (a call that brings its own retry
/// policy, interceptors or redirect rule gets a list of its own).
///
/// Order, outer to inner: retry ▸ deadline ▸ the resource's interceptors ▸ the target's and the
/// call's ▸ authentication ▸ redirects ▸ cookies (inside the redirects, so each hop gets the
/// cookies of its own URL and stores its own `Set-Cookie`) ▸ the cache (each hop looked up with the
/// credentials it carries), and then always the transport stage
/// (admission, the transport, the limiter watching the head). A call with no policies has an empty list: the
/// transport stage alone. That is the fast path: a property of the list, not a second copy of the
/// logic.
struct Pipeline: Sendable {
    /// The rest of the pipeline, as a stage sees it.
    typealias Next = @Sendable (TransportRequest, InterceptorContext) async throws -> TransportResponse

    /// Outer to inner; the transport stage is not in it.
    let stages: [any Stage]
    /// Whether a stage may change the request's header fields or add credentials on its way (code
    /// NetLayer does not control, interceptors and an authenticator; or a cookie jar): the request
    /// printed is then the one sent, and its secrets are masked.
    let changesHeaders: Bool

    /// The stages of a call with these policies.
    /// - Parameters:
    ///   - retries: The call's policy is not ``RetryPolicy/none``.
    ///   - interceptors: The resource's, then the target's and the call's.
    ///   - authentication: The resource's authenticator.
    ///   - redirects: The call follows redirects.
    ///   - cookies: The resource's cookie jar.
    init(
        retries: Bool, interceptors: [any Interceptor], authentication: Authentication?, redirects: Bool,
        cookies: CookieJar? = nil, cache: HTTPCache? = nil
    ) {
        var stages: [any Stage] = []
        if retries { stages.append(RetryStage()) }
        // Code NetLayer does not control runs inside: bound it by the total deadline.
        if !interceptors.isEmpty || authentication != nil { stages.append(DeadlineStage()) }
        for interceptor in interceptors { stages.append(InterceptorStage(interceptor: interceptor)) }
        if let authentication { stages.append(AuthenticationStage(authentication: authentication)) }
        if redirects { stages.append(RedirectStage()) }
        if let cookies { stages.append(CookieStage(jar: cookies)) }
        if let cache { stages.append(CacheStage(cache: cache)) }
        self.stages = stages
        changesHeaders = !interceptors.isEmpty || authentication != nil || cookies != nil
    }

    /// The resource's own pipeline: its retry policy, interceptors, authenticator, redirects and
    /// cookie jar.
    init(resource options: ResourceOptions) {
        self.init(
            retries: !options.retryPolicy.isNone, interceptors: options.interceptors,
            authentication: options.authentication, redirects: options.redirects.maximum > 0,
            cookies: options.cookieJar, cache: options.cache)
    }

    /// The pipeline a call with `options` runs: the resource's, unless the call changes it.
    static func of(_ resource: Resource, options: CallOptions, policy: RetryPolicy) -> Pipeline {
        let own = resource.options
        let sameRetries = policy.isNone == own.retryPolicy.isNone
        let sameRedirects = (options.redirectPolicy.maximum > 0) == (own.redirects.maximum > 0)
        if options.interceptors.isEmpty, sameRetries, sameRedirects { return resource.pipeline }
        return Pipeline(
            retries: !policy.isNone, interceptors: own.interceptors + options.interceptors,
            authentication: own.authentication, redirects: options.redirectPolicy.maximum > 0,
            cookies: own.cookieJar, cache: own.cache)
    }

    /// Runs `request` through the stages and the transport.
    func run(_ request: TransportRequest, context: InterceptorContext) async throws -> TransportResponse {
        try await Self.run(stages[...], request, context)
    }

    private static func run(
        _ stages: ArraySlice<any Stage>, _ request: TransportRequest, _ context: InterceptorContext
    ) async throws -> TransportResponse {
        guard let first = stages.first else {
            return try await TransportStage.send(request, context: context)
        }
        let rest = stages.dropFirst()
        return try await first.run(request, context: context) { request, context in
            try await run(rest, request, context)
        }
    }
}

/// A user's ``Interceptor`` as a stage.
struct InterceptorStage: Stage {
    let interceptor: any Interceptor

    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        guard let log = context.call?.log else {
            return try await interceptor.intercept(request, context: context) { request in
                try await next(request, context)
            }
        }
        let name = type(of: interceptor)
        let watch =
            interceptor is Authentication
            ? ResendWatch.replay(log)
            : ResendWatch(
                log: log, action: "sent again by interceptor \(name)", reason: nil,
                declined: "not sent again by interceptor \(name)")
        do {
            return try await interceptor.intercept(request, context: context) { request in
                try await watch.send { try await next(request, context) }
            }
        } catch {
            watch.declined()
            throw error
        }
    }
}

/// The resource's ``Authentication``: credentials added, a 401 refreshed and replayed.
struct AuthenticationStage: Stage {
    let authentication: Authentication

    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        guard let log = context.call?.log else {
            return try await authentication.run(request) { request in try await next(request, context) }
        }
        let watch = ResendWatch.replay(log)
        do {
            return try await authentication.run(request) { request in
                try await watch.send { try await next(request, context) }
            }
        } catch {
            watch.declined()
            throw error
        }
    }
}

/// Watches one pass of a stage that may send the call again (an authenticator's replay, an
/// interceptor calling `next` twice), for debug output: every send after the first prints the
/// answer to the one before and why it is sent again, and an answer the stage neither returns nor
/// sends again (it throws instead: a refresh that failed) prints too, so each attempt the
/// transport made shows. Made only when the call prints.
final class ResendWatch: Sendable {
    private let log: RequestLog
    private let action: String
    private let reason: String?
    private let declinedAction: String
    /// How many sends began, and the outcome of the last that ended.
    private let state = LockedValue<(sends: Int, outcome: Result<Int, NetLayerError>?)>((0, nil))

    /// - Parameters:
    ///   - action: Printed when the stage sends again (`replay`).
    ///   - reason: Why, when the stage knows.
    ///   - declined: Printed when the stage throws after an answer (`no replay`).
    init(log: RequestLog, action: String, reason: String?, declined: String) {
        self.log = log
        self.action = action
        self.reason = reason
        self.declinedAction = declined
    }

    /// The watch of an ``Authentication``, which replays a call once after a rejection.
    static func replay(_ log: RequestLog) -> ResendWatch {
        ResendWatch(
            log: log, action: "replay", reason: "the authenticator refreshed the credentials",
            declined: "no replay")
    }

    /// The stage threw: when its last send was answered, that answer was dropped; print it (the
    /// failure line that follows says why).
    func declined() {
        guard case .success(let status)? = state.withLock({ $0.outcome }) else { return }
        log.resent(declinedAction, after: .success(status), reason: nil)
    }

    /// Sends through `next`, first printing the answer it follows when it is not the first send.
    func send(_ next: () async throws -> TransportResponse) async throws -> TransportResponse {
        let previous: Result<Int, NetLayerError>? = state.withLock { state in
            state.sends += 1
            return state.sends > 1 ? state.outcome : nil
        }
        if let previous { log.resent(action, after: previous, reason: reason) }
        do {
            let response = try await next()
            state.withLock { $0.outcome = .success(response.head.statusCode) }
            return response
        } catch {
            state.withLock { $0.outcome = .failure(NetLayerError.known(error)) }
            throw error
        }
    }
}

/// Bounds what runs inside it — interceptors, an authenticator, a refresh — by the call's total
/// deadline (the transport bounds its own hops), and turns what such code throws into a
/// ``NetLayerError`` (``NetLayerError/Code/interceptorFailed`` for a foreign error).
struct DeadlineStage: Stage {
    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        do {
            return try await DeadlineRace.run(
                until: context.deadline, total: context.transport.timeouts.total
            ) {
                try await next(request, context)
            }
        } catch {
            throw NetLayerError.known(error)
        }
    }
}

extension NetLayerError {
    /// Any error of the pipeline as a ``NetLayerError``: cancellation as `.cancelled`, anything
    /// foreign as `.interceptorFailed`.
    static func known(_ error: any Error) -> NetLayerError {
        if let known = error as? NetLayerError { return known }
        if error is CancellationError { return .cancelled }
        if let urlError = error as? URLError, urlError.code == .cancelled { return .cancelled }
        return .interceptorFailed(error)
    }
}
