import Foundation

/// Supplies credentials for every attempt of a call, and renews them when the server rejects
/// them. Wrap one in an ``Authentication`` and set it on ``ResourceOptions/authentication``.
///
/// NetLayer calls ``authenticate(_:)`` before every attempt, so credentials read from a store
/// that rotates (a keychain, a token file) are always current and the resource never needs to be
/// rebuilt. When a response is a rejection (``isRejection(_:)``, a 401 by default), NetLayer calls
/// ``refresh()`` **once** for all the calls that were rejected together, then replays each of them
/// once. Calls made from inside ``refresh()`` through a resource with the same ``Authentication``
/// (a token endpoint on the same service) skip it: no credentials added, no refresh on their 401.
public protocol Authenticator: Sendable {
    /// Adds credentials to one attempt's request.
    /// - Throws: Anything; the call fails with ``NetLayerError/Code/authenticationFailed``.
    func authenticate(_ request: inout TransportRequest) async throws

    /// Obtains new credentials (refresh an OAuth token, ask for a new session). Never called by
    /// two calls at once for the same ``Authentication``. Bounded by
    /// ``Authentication/refreshTimeout`` (default 60 s): when it elapses the refresh is cancelled
    /// and fails with ``NetLayerError/Code/timedOut``.
    /// - Throws: Anything; every call waiting for this refresh (including a call that started
    ///   while it ran, which is then not sent) fails with
    ///   ``NetLayerError/Code/authenticationFailed`` carrying the error as
    ///   ``NetLayerError/underlying``.
    func refresh() async throws

    /// Whether `response` means the credentials were rejected. Default: status 401.
    func isRejection(_ response: ResponseHead) -> Bool
}

extension Authenticator {
    /// Status 401 Unauthorized.
    public func isRejection(_ response: ResponseHead) -> Bool { response.statusCode == 401 }
}

/// An ``Authenticator`` and the bookkeeping that makes its refreshes single-flight. Share one
/// between resources that use the same credentials, so one rejection wave refreshes once for all.
///
/// ```swift
/// let auth = Authentication.bearer(token: saved.accessToken) { rejected in
///     try await tokens.refresh(rejecting: rejected)   // returns the new access token
/// }
/// let api = BookstoreAPI(options: ResourceOptions { $0.authentication = auth })
/// ```
/// A token that cannot be renewed (a personal access token) is ``bearer(token:)``.
public final class Authentication: Sendable {
    /// The authenticator.
    public let authenticator: any Authenticator
    /// The longest one refresh may run (see ``init(_:refreshTimeout:)``), after clamping.
    public let refreshTimeout: Duration
    private let flight = RefreshFlight()
    /// Why ``refreshTimeout`` cannot be used, or `nil`.
    private let problem: NetLayerError?

    /// The default ``refreshTimeout``: 60 s. Long enough for a token endpoint on a slow network
    /// (URLSession's own default request timeout), short enough that a refresh that hangs does not
    /// hold every call of the service for minutes.
    public static let defaultRefreshTimeout: Duration = .seconds(60)

    /// Wraps `authenticator`.
    /// - Parameters:
    ///   - authenticator: Adds and renews the credentials.
    ///   - refreshTimeout: The longest one ``Authenticator/refresh()`` may run. Default
    ///     ``defaultRefreshTimeout`` (60 s). When it elapses the refresh is cancelled and counts
    ///     as failed: every call waiting for it throws ``NetLayerError/Code/authenticationFailed``
    ///     whose ``NetLayerError/underlying`` is a ``NetLayerError/Code/timedOut`` error, and a
    ///     later rejection refreshes anew. Zero or less makes every call throw
    ///     ``NetLayerError/Code/invalidValue`` (nothing is sent); more than ``Timeouts/maximum`` is
    ///     clamped to it.
    public init(
        _ authenticator: any Authenticator, refreshTimeout: Duration = Authentication.defaultRefreshTimeout
    ) {
        self.authenticator = authenticator
        if refreshTimeout <= .zero {
            problem = .invalidValue(
                part: "authentication.refreshTimeout",
                reason: "\(RequestLog.span(refreshTimeout)) is zero or less")
        } else {
            problem = nil
        }
        self.refreshTimeout = min(refreshTimeout, Timeouts.maximum)
    }

    /// A bearer token (`Authorization: Bearer …`) renewed by `refresh`, which receives the token
    /// that was rejected and returns the next one.
    /// - Parameters:
    ///   - token: The token sent until the first refresh.
    ///   - refreshTimeout: The longest one refresh may run; see ``init(_:refreshTimeout:)``.
    ///     Default ``defaultRefreshTimeout`` (60 s).
    ///   - refresh: Returns the next token; its error fails every call waiting for it.
    public static func bearer(
        token: String, refreshTimeout: Duration = Authentication.defaultRefreshTimeout,
        refresh: @escaping @Sendable (_ rejected: String) async throws -> String
    ) -> Authentication {
        Authentication(BearerAuthenticator(token: token, refresh: refresh), refreshTimeout: refreshTimeout)
    }

    /// A bearer token that cannot be renewed (a personal access token, an API token):
    /// `Authorization: Bearer <token>` on every attempt, redacted like every credential in debug
    /// output, `curl` commands and error descriptions, and masked wherever a server echoes it.
    /// With nothing to refresh, a 401 is not a rejection: it goes to validation and throws
    /// ``NetLayerError/Code/unacceptableStatus`` once, not replayed (as
    /// ``basic(username:password:)``). A token that expires wants
    /// ``bearer(token:refreshTimeout:refresh:)``.
    /// - Parameter token: Sent after `Bearer `, with surrounding spaces and tabs trimmed. An empty
    ///   token makes every call throw ``NetLayerError/Code/invalidValue``, and one with a control
    ///   character (a line break read from a file) ``NetLayerError/Code/invalidHeader``; either way
    ///   nothing is sent.
    public static func bearer(token: String) -> Authentication {
        Authentication(StaticBearerAuthenticator(token: token))
    }

    /// A bearer token kept in your own store: `currentToken` is read for every attempt, and
    /// `refresh` (called once per rejection wave, with the token that was rejected) updates the
    /// store. One source of truth, no copy inside NetLayer.
    /// - Parameters:
    ///   - currentToken: Reads the token for each attempt.
    ///   - refreshTimeout: The longest one refresh may run; see ``init(_:refreshTimeout:)``.
    ///     Default ``defaultRefreshTimeout`` (60 s).
    ///   - refresh: Renews the token in your store; its error fails every call waiting for it.
    public static func bearer(
        currentToken: @escaping @Sendable () async throws -> String,
        refreshTimeout: Duration = Authentication.defaultRefreshTimeout,
        refresh: @escaping @Sendable (_ rejected: String) async throws -> Void
    ) -> Authentication {
        Authentication(
            StoredBearerAuthenticator(currentToken: currentToken, renew: refresh),
            refreshTimeout: refreshTimeout)
    }

    /// HTTP Basic credentials (RFC 7617, UTF-8). They cannot be renewed, so a 401 is not a
    /// rejection to refresh after: it goes to validation and throws
    /// ``NetLayerError/Code/unacceptableStatus`` as it would without an authenticator.
    public static func basic(username: String, password: String) -> Authentication {
        Authentication(BasicAuthenticator(username: username, password: password))
    }

    /// How many refreshes have run (diagnostics and tests).
    public var refreshCount: Int { flight.count }

    /// Runs one attempt with credentials; on a rejection refreshes (single flight) and replays once.
    func run(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        if let problem { throw problem }
        // A call made by the refresh itself (a token endpoint on the same service) must not wait
        // for that refresh, nor start another one.
        if RefreshFlight.current == ObjectIdentifier(flight) { return try await next(request) }
        let sent = try await flight.settled()
        let response = try await next(try await authenticated(request))
        guard authenticator.isRejection(response.head) else { return response }
        response.body.cancel()
        try await flight.refresh(after: sent, with: authenticator, timeout: refreshTimeout)
        // The refresh helps every later call; this one cannot be replayed byte for byte.
        if let problem = request.body?.replayProblem {
            throw NetLayerError.authenticationFailed(
                "the credentials were refreshed, but the request was not sent again: its body cannot be: \(problem)",
                underlying: nil)
        }
        // The replay's answer is final: a second rejection goes to validation as the 401 it is.
        return try await next(try await authenticated(request))
    }

    private func authenticated(_ request: TransportRequest) async throws -> TransportRequest {
        var request = request
        do {
            try await authenticator.authenticate(&request)
        } catch let error as NetLayerError {
            throw error
        } catch is CancellationError {
            throw NetLayerError.cancelled
        } catch {
            throw NetLayerError.authenticationFailed(
                "the authenticator could not add credentials", underlying: error)
        }
        return request
    }
}

/// An ``Authentication`` is an ``Interceptor``: ``ResourceOptions/authentication`` places it
/// innermost in the chain, and a target or call that needs other credentials can carry one in its
/// own interceptors (nothing else changes: the same single flight, the same one replay).
extension Authentication: Interceptor {
    /// Adds credentials and, after a rejection, refreshes once for the wave and replays once.
    /// - Throws: ``NetLayerError/Code/authenticationFailed`` when adding credentials or the
    ///   refresh fails; whatever `next` throws.
    public func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        try await run(request, next: next)
    }
}

/// Single-flight refreshes: calls rejected with the credentials of generation *g* share one
/// refresh that makes generation *g + 1*; a call rejected with older credentials than the newest
/// just replays. A refresh that fails fails every call of its wave, including those whose
/// rejection arrives after it failed: they were sent before it ended, so they share its failure
/// instead of starting another refresh with credentials already known to be bad, and so do calls
/// that waited for it before being sent (they are not sent). A refresh is bounded by a timeout,
/// after which it is cancelled and fails, so a hung refresh cannot hold later calls forever. A
/// call sent after the failure may refresh again (the app may have signed in anew).
final class RefreshFlight: Sendable {
    private struct State {
        var generation = 0
        var inFlight: Task<Void, any Error>?
        var count = 0
        /// How many refreshes have ended, and the error of the last one when it failed.
        var landings = 0
        var lastFailure: (any Error)?
    }

    /// What an attempt was sent with: the credentials' generation and how many refreshes had
    /// ended by then.
    struct Sent: Sendable {
        var generation: Int
        var landings: Int
    }
    private let state = LockedValue(State())

    /// The flight whose refresh the current task is running.
    @TaskLocal static var current: ObjectIdentifier?

    var count: Int { state.withLock { $0.count } }

    /// The generation to attempt with, after any refresh in flight ends.
    /// - Throws: ``NetLayerError/Code/authenticationFailed`` when the refresh waited for failed
    ///   (or ran out of its refresh timeout): this call shares that failure, unsent, rather than
    ///   going out with credentials known to be bad and starting another refresh;
    ///   ``NetLayerError/Code/cancelled`` when the caller is cancelled while waiting.
    func settled() async throws(NetLayerError) -> Sent {
        if let task = state.withLock({ $0.inFlight }) {
            let outcome = try await Self.outcome(of: task)
            if case .failure(let error) = outcome { throw Self.failure(error) }
        }
        return state.withLock { Sent(generation: $0.generation, landings: $0.landings) }
    }

    /// Makes sure credentials newer than the ones `sent` carried exist, refreshing at most once
    /// per generation. A refresh runs for at most `timeout`; then it is cancelled and fails with
    /// ``NetLayerError/Code/timedOut``.
    func refresh(
        after sent: Sent, with authenticator: any Authenticator, timeout: Duration
    ) async throws(NetLayerError) {
        let shared: Result<Task<Void, any Error>?, any Error> = state.withLock { state in
            if state.generation > sent.generation { return .success(nil) }
            if let running = state.inFlight { return .success(running) }
            // A refresh of this wave already failed after this call was sent: share its failure.
            if state.landings > sent.landings, let failure = state.lastFailure { return .failure(failure) }
            state.count += 1
            let flight = state.count
            let id = ObjectIdentifier(self)
            // The refresh itself settles the flight, so a waiter that is cancelled (and leaves
            // early) neither ends the flight for the others nor loses the new generation. It is
            // bounded by `timeout`, so a refresh that hangs cannot hold every later call.
            let running = Task<Void, any Error> {
                do {
                    try await RefreshFlight.$current.withValue(id) {
                        try await DeadlineRace.run(
                            until: .now + timeout, total: nil,
                            timedOut:
                                "the refresh did not finish within its refresh timeout of \(timeout.formattedSeconds)"
                        ) { try await authenticator.refresh() }
                    }
                } catch {
                    land(flight, failure: error)
                    throw error
                }
                land(flight, failure: nil)
            }
            state.inFlight = running
            return .success(running)
        }
        switch shared {
        case .failure(let error):
            throw Self.failure(error)
        case .success(nil):
            return
        case .success(let task?):
            if case .failure(let error) = try await Self.outcome(of: task) { throw Self.failure(error) }
        }
    }

    /// The error a call throws for a refresh that failed with `error`.
    private static func failure(_ error: any Error) -> NetLayerError {
        if let known = error as? NetLayerError, known.code == .cancelled { return known }
        return .authenticationFailed("refreshing the credentials failed", underlying: error)
    }

    /// Ends flight number `flight`: no refresh in flight any more, and a new generation when it
    /// succeeded (`failure` is `nil`).
    private func land(_ flight: Int, failure: (any Error)?) {
        state.withLock { state in
            guard state.count == flight else { return }
            state.inFlight = nil
            state.landings += 1
            state.lastFailure = failure
            if failure == nil { state.generation += 1 }
        }
    }

    /// How the refresh `task` ended. Throws ``NetLayerError/Code/cancelled`` as soon as the
    /// waiting task is cancelled (the refresh itself goes on for the others). The continuation is
    /// resumed exactly once, by whichever comes first.
    private static func outcome(
        of task: Task<Void, any Error>
    ) async throws(NetLayerError) -> Result<Void, any Error> {
        let gate = OnceResult<Result<Void, any Error>>()
        let outcome: Result<Void, any Error>
        do {
            outcome = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Result<Void, any Error>, any Error>) in
                    gate.set(continuation)
                    Task { gate.resume(with: .success(await task.result)) }
                }
            } onCancel: {
                gate.resume(with: .failure(NetLayerError.cancelled))
            }
        } catch {
            throw .cancelled
        }
        if Task.isCancelled { throw .cancelled }
        return outcome
    }
}

/// `Authorization: Bearer <token>`, renewed by a closure.
struct BearerAuthenticator: Authenticator {
    private let token: LockedValue<String>
    private let renew: @Sendable (String) async throws -> String

    init(token: String, refresh: @escaping @Sendable (String) async throws -> String) {
        self.token = LockedValue(token)
        self.renew = refresh
    }

    func authenticate(_ request: inout TransportRequest) async throws {
        try request.headerFields.setValue("Bearer \(token.withLock { $0 })", for: "Authorization")
    }

    func refresh() async throws {
        let next = try await renew(token.withLock { $0 })
        // Checked here, so a bad token fails the refresh rather than every later call.
        _ = try HeaderFields.validated(name: "Authorization", value: "Bearer \(next)")
        token.withLock { $0 = next }
    }
}

/// `Authorization: Bearer <token>` read from the caller's store for every attempt.
struct StoredBearerAuthenticator: Authenticator {
    let currentToken: @Sendable () async throws -> String
    let renew: @Sendable (String) async throws -> Void

    func authenticate(_ request: inout TransportRequest) async throws {
        try request.headerFields.setValue("Bearer \(try await currentToken())", for: "Authorization")
    }

    func refresh() async throws {
        try await renew(try await currentToken())
    }
}

/// `Authorization: Bearer <token>` with a token that is never renewed.
struct StaticBearerAuthenticator: Authenticator {
    /// The token without surrounding spaces and tabs.
    let token: String

    init(token: String) {
        self.token = token.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }

    func authenticate(_ request: inout TransportRequest) async throws {
        // A token read from a missing setting would otherwise go out as a bare "Bearer".
        if token.isEmpty {
            throw NetLayerError.invalidValue(part: "authentication", reason: "the bearer token is empty")
        }
        try request.headerFields.setValue("Bearer \(token)", for: "Authorization")
    }

    /// Never called: nothing is a rejection.
    func refresh() async throws {}

    func isRejection(_ response: ResponseHead) -> Bool { false }
}

/// `Authorization: Basic base64(user:password)`.
struct BasicAuthenticator: Authenticator {
    let value: String

    init(username: String, password: String) {
        value = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    func authenticate(_ request: inout TransportRequest) async throws {
        try request.headerFields.setValue(value, for: "Authorization")
    }

    /// Never called: nothing is a rejection.
    func refresh() async throws {}

    func isRejection(_ response: ResponseHead) -> Bool { false }
}
