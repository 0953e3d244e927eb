import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

/// Counts hits from any thread: a server handler's requests, a stub's calls, a closure's runs.
///
/// ```swift
/// let hits = HitCounter()
/// server.route(path) { _ in hits.next() == 1 ? .text("busy", status: 503) : .text("ok") }
/// ```
final class HitCounter: Sendable {
    private let state = TestLocked(0)

    init() {}

    /// Counts one hit and returns its number: 1 for the first, 2 for the second, …
    func next() -> Int {
        state.withLock { value in
            value += 1
            return value
        }
    }

    /// The hits so far.
    var count: Int { state.withLock { $0 } }
}

extension TestRoutes {
    /// The 401 gate: answers a request carrying `Bearer <token>` with `accepted` (an echo unless
    /// given) and any other with 401 and `rejection` as its body. With `gate`, a rejected request
    /// waits in the handler until the gate opens, so the 401s of concurrent calls arrive together.
    static func acceptingBearer(
        _ token: String, rejection: String = "token expired", holdingRejectionsAt gate: TestGate? = nil,
        accepted: @escaping @Sendable (RecordedRequest) -> TestResponse = { .echo($0) }
    ) -> @Sendable (RecordedRequest) -> TestResponse {
        { request in
            if request.header("Authorization") == "Bearer \(token)" { return accepted(request) }
            gate?.wait()
            return .text(rejection, status: 401)
        }
    }
}

/// A token refresher that records the tokens it was asked to replace and hands out `next`.
final class Refresher: Sendable {
    let rejected = LockedValue<[String]>([])
    let next: String
    init(next: String) { self.next = next }
    func refresh(_ token: String) async throws -> String {
        rejected.withLock { $0.append(token) }
        return next
    }
}

extension TestServer {
    /// Routes `path` so that each request waits in the server's handler until `gate` opens, then
    /// gets `answer` (an echo unless given).
    func routeHeld(
        _ path: String, by gate: TestGate,
        answer: @escaping @Sendable (RecordedRequest) -> TestResponse = { .echo($0) }
    ) {
        route(path) { request in
            gate.wait()
            return answer(request)
        }
    }
}

/// "Hold the only slot": one call to `path + "/held"` through `api` (a resource with a concurrency
/// limit of 1) that the server keeps in its handler until `gate` opens. `hold` returns once the
/// server has the request, so every later call of `api` waits for the slot.
///
/// ```swift
/// let gate = TestGate()
/// defer { gate.open() }
/// let held = await HeldSlot.hold(api, on: server, path: path, until: gate)
/// ```
struct HeldSlot: Sendable {
    let call: Task<Data, any Error>

    static func hold(
        _ api: ResilientAPI, on server: TestServer, path: String, until gate: TestGate,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> HeldSlot {
        server.routeHeld(path + "/held", by: gate)
        let call = Task { try await api.target(path + "/held").makeExecutor().execute() }
        #expect(
            await server.waitForRequests(count: 1, path: path + "/held").count == 1,
            sourceLocation: sourceLocation)
        return HeldSlot(call: call)
    }

    /// The held call's result once the gate is open.
    var value: Data {
        get async throws { try await call.value }
    }
}
