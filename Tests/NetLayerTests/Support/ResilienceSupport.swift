import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A resource with every admission and resilience setting of `Resource.init`, pointing at a test
/// server.
final class ResilientAPI: Resource, @unchecked Sendable {
    init(
        server: TestServer, headers: [String: String] = [:], rateLimits: [RateLimit] = [],
        maxConcurrentRequests: Int? = nil, limiter: RequestLimiter? = nil, connections: Int? = nil,
        options: ResourceOptions = ResourceOptions()
    ) {
        super.init(
            protocol: .http, domain: server.hostAndPort, defaultHeaders: headers, rateLimits: rateLimits,
            maxConcurrentRequests: maxConcurrentRequests, limiter: limiter,
            transport: connections.map { Self.transport(connections: $0) }, options: options)
    }

    /// A transport whose session opens up to `connections` connections to one host (Linux
    /// URLSession's default is 6, which would queue concurrent calls below NetLayer's own limits).
    static func transport(connections: Int) -> URLSessionTransport {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = connections
        return URLSessionTransport(configuration: configuration)
    }

    func target(_ path: String) -> EchoTarget { EchoTarget(resource: self, path: path) }

    /// Concurrency-slot waiters queued now.
    var slotWaiters: Int { limiter.slots?.waitingCount ?? 0 }

    /// Rate-limit waiters queued now.
    var rateWaiters: Int {
        get async { await limiter.rateLimiter.waitingCount }
    }
}

/// A target with its own interceptors, retry policy and validation (the `open var`s of `Target`).
final class TunedTarget: Target, @unchecked Sendable {
    private let tunedInterceptors: [any Interceptor]
    private let tunedRetryPolicy: RetryPolicy?
    private let tunedValidation: Validation?

    init(
        resource: Resource, path: String, interceptors: [any Interceptor] = [],
        retryPolicy: RetryPolicy? = nil,
        validation: Validation? = nil
    ) {
        tunedInterceptors = interceptors
        tunedRetryPolicy = retryPolicy
        tunedValidation = validation
        super.init(resource: resource, path: path)
    }

    required init(resource: Resource, path: String, headers: [String: String] = [:], params: Params = [:]) {
        tunedInterceptors = []
        tunedRetryPolicy = nil
        tunedValidation = nil
        super.init(resource: resource, path: path, headers: headers, params: params)
    }

    override var interceptors: [any Interceptor] { tunedInterceptors }
    override var retryPolicy: RetryPolicy? { tunedRetryPolicy }
    override var validation: Validation? { tunedValidation }
}

/// The error a fault-matrix test throws when its work did not end in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "did not finish within \(limit) (a hang)" }
}

/// Runs `body` and returns what it returns, or records an issue and throws `DeadlineExceeded`
/// once `limit` has passed (cancelling `body`). Never waits for a `body` that ignores
/// cancellation, so a hang fails the test instead of stalling the run.
func withDeadline<T: Sendable>(
    _ limit: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = FirstResult<T>()
    let work = Task {
        do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
    }
    let watchdog = Task {
        do { try await Task.sleep(for: limit) } catch { return }
        if race.finish(.failure(DeadlineExceeded(limit: limit))) {
            Issue.record("did not finish within \(limit)", sourceLocation: sourceLocation)
        }
        work.cancel()
    }
    defer { watchdog.cancel() }
    return try await race.value()
}

/// The first of several results, handed to one waiter.
final class FirstResult<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }
    private let state = LockedValue(State())

    /// Stores `result` unless one came first; `true` when this one won.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, waiter): (Bool, CheckedContinuation<T, any Error>?) = state.withLock { state in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return won
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// Waits until `condition` holds, checking every 2 ms; `false` when `timeout` passed first. For
/// state that has no notification of its own (a queue length, a recorded request).
func eventually(
    timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// A one-shot signal a test awaits: set from any thread or task, awaited by one or more tasks.
final class TestSignal: Sendable {
    private struct State {
        var isSet = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = LockedValue(State())

    init() {}

    func signal() {
        let waiters = state.withLock { state in
            state.isSet = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isSet: Bool { state.withLock { $0.isSet } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.isSet { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Records what a call's interceptors saw, in order.
final class Trail: Sendable {
    private let entries = LockedValue<[String]>([])
    init() {}
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// An interceptor that writes `name` into a trail on the way in and out, and appends it to the
/// request's `X-Trail` header, so the server sees the order too.
struct TrailInterceptor: Interceptor {
    let name: String
    let trail: Trail

    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        trail.add("\(name)>")
        var request = request
        let before = request.headerFields["X-Trail"].map { $0 + "," } ?? ""
        try request.headerFields.setValue(before + name, for: "X-Trail")
        let response = try await next(request)
        trail.add("<\(name)")
        return response
    }
}

/// An interceptor made of a closure.
struct ClosureInterceptor: Interceptor {
    let body:
        @Sendable (
            TransportRequest, InterceptorContext,
            @Sendable (TransportRequest) async throws -> TransportResponse
        ) async throws -> TransportResponse

    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        try await body(request, context, next)
    }
}

/// Every result a completion handler received.
final class CompletionProbe<Value: Sendable>: Sendable {
    private let results = LockedValue<[Result<Value, NetLayerError>]>([])
    init() {}

    func record(_ result: Result<Value, NetLayerError>) { results.withLock { $0.append(result) } }
    var all: [Result<Value, NetLayerError>] { results.withLock { $0 } }
}

/// Resident memory of this process in bytes, from `/proc/self/statm` (Linux); `nil` elsewhere.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Whether this process runs under the thread sanitizer (`swift test --sanitize=thread`), whose
/// shadow memory and deferred frees make resident-memory figures meaningless.
let runsUnderThreadSanitizer: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(process, "__tsan_init") != nil
}()

extension NetLayerError {
    /// The error a failing call threw, or `nil` (and an issue) when it threw something else.
    static func from(_ error: any Error, sourceLocation: SourceLocation = #_sourceLocation) -> NetLayerError?
    {
        if let known = error as? NetLayerError { return known }
        Issue.record("expected a NetLayerError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs `call` and returns the `NetLayerError` it threw; records an issue when it succeeded.
func failure<T>(
    sourceLocation: SourceLocation = #_sourceLocation, of call: () async throws -> T
) async -> NetLayerError? {
    do {
        _ = try await call()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return NetLayerError.from(error, sourceLocation: sourceLocation)
    }
}

extension WireTests {
    /// Issue 7's wire suites (retries, authentication, admission, interceptors, faults, the soak),
    /// one test at a time like every wire suite; `swift test --filter Resilience` runs them all.
    @Suite enum Resilience {}
}
