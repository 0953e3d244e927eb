import AsyncAlgorithms
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NetLayer

/// A call with an idle timeout or a total deadline. AsyncHTTPClient's own deadline ends at the
/// head, so the whole exchange — the request, the head and every chunk of the body — runs in a
/// task of its own that a watchdog cancels when a limit elapses; cancelling it reaches the
/// connection at any stage. The body is handed to its consumer through a channel that holds one
/// chunk: while the consumer does not take it, the task reads nothing more from the client, and
/// the client nothing more from the socket. Time spent waiting for the consumer does not count as
/// idle (no bytes arrive because the caller is not reading, not because the server is slow); the
/// total deadline counts everything.
enum TimedExchange {
    static func send(
        _ request: TransportRequest, client: HTTPClient, timeouts: Timeouts, progress: ProgressReporter?
    ) async throws -> TransportResponse {
        let control = ExchangeControl(timeouts: timeouts, eventLoop: client.eventLoopGroup.any())
        let prepared = RequestConversion.clientRequest(
            request, progress: progress, activity: control.activity)
        let channel = AsyncThrowingChannel<Data, any Error>()
        let response: HTTPClientResponse = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                control.start(continuation) {
                    await drive(
                        prepared, client: client, url: request.url, control: control, channel: channel)
                }
            }
        } onCancel: {
            control.cancel(because: nil)
        }
        let head = ResponseConversion.head(response, url: request.url)
        let expected = ResponseConversion.expectedLength(
            response.headers, method: request.method, status: head.statusCode)
        let body = ResponseBody(
            chunks: ChannelChunks(channel: channel, control: control, expected: expected, progress: progress),
            expectedLength: expected, onCancel: { control.cancel(because: nil) })
        return TransportResponse(head: head, body: body)
    }

    /// The exchange's task: sends, hands the head over, then passes the body on chunk by chunk.
    private static func drive(
        _ prepared: HTTPClientRequest, client: HTTPClient, url: URL, control: ExchangeControl,
        channel: AsyncThrowingChannel<Data, any Error>
    ) async {
        do {
            let response = try await client.execute(prepared, deadline: .distantFuture)
            control.activity.touch()
            guard control.deliver(response) else { return }
            var chunks = response.body.makeAsyncIterator()
            while let buffer = try await chunks.next() {
                control.activity.touch()
                control.activity.waitsForConsumer(true)
                await channel.send(Data(buffer: buffer, byteTransferStrategy: .automatic))
                control.activity.waitsForConsumer(false)
                try Task.checkCancellation()
            }
            control.finished()
            channel.finish()
        } catch {
            let failure = control.failure(for: error, url: url)
            if !control.fail(failure) { channel.fail(failure) }
        }
    }
}

/// The body's consumer side: the chunks the exchange's task hands over.
struct ChannelChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let channel: AsyncThrowingChannel<Data, any Error>
    let control: ExchangeControl
    let expected: Int64?
    let progress: ProgressReporter?

    func makeAsyncIterator() -> Iterator {
        Iterator(base: channel.makeAsyncIterator(), control: control, expected: expected, progress: progress)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingChannel<Data, any Error>.Iterator
        let control: ExchangeControl
        let expected: Int64?
        let progress: ProgressReporter?
        var received: Int64 = 0

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                // The channel also ends when the reading task is cancelled: only a body read to
                // its end is an end, never a cut one.
                if control.isComplete { return nil }
                try Task.checkCancellation()
                throw control.endedFailure ?? CancellationError()
            }
            received += Int64(chunk.count)
            progress?.reportDownload(received: received, expected: expected)
            return chunk
        }
    }
}

/// When bytes last moved, for the idle timeout.
final class Activity: Sendable {
    private let state = NIOLockedValueBox((last: ContinuousClock.now, waiting: false))

    /// Bytes moved now.
    func touch() { state.withLockedValue { $0.last = .now } }

    /// Whether the exchange waits for its consumer (idle time does not run meanwhile).
    func waitsForConsumer(_ waiting: Bool) {
        state.withLockedValue { state in
            state.waiting = waiting
            state.last = .now
        }
    }

    /// When the idle timeout elapses; `nil` while waiting for the consumer.
    func idleDeadline(_ idle: Duration) -> ContinuousClock.Instant? {
        state.withLockedValue { $0.waiting ? nil : $0.last + idle }
    }
}

/// The shared state of one timed exchange: its task, its watchdog, how it ended. Each
/// continuation and each outcome is settled once, under the lock.
///
/// The watchdog is a task scheduled on an event loop for the next limit, which cancelling
/// removes: a sleeping Swift task would leave its timer behind when cancelled (the global
/// executor cannot take a delayed job back), to fire and cost CPU a whole idle timeout later,
/// once for every call that ended in time.
final class ExchangeControl: Sendable {
    let activity = Activity()
    private let timeouts: Timeouts
    private let eventLoop: any EventLoop
    private let start = ContinuousClock.now
    private let state = NIOLockedValueBox(State())

    private struct State {
        var continuation: CheckedContinuation<HTTPClientResponse, any Error>?
        var task: Task<Void, Never>?
        /// The next check, while the exchange is watched.
        var watchdog: Scheduled<Void>?
        /// Why the exchange was stopped: a timeout's error, or `nil` for a plain cancellation.
        var stopped: (any Error)??
        var complete = false
        var failure: (any Error)?
    }

    init(timeouts: Timeouts, eventLoop: any EventLoop) {
        self.timeouts = timeouts
        self.eventLoop = eventLoop
    }

    /// Starts the exchange's task and its watchdog; a call cancelled before is failed at once.
    func start(
        _ continuation: CheckedContinuation<HTTPClientResponse, any Error>,
        _ operation: @escaping @Sendable () async -> Void
    ) {
        let cancelled: Bool = state.withLockedValue { state in
            if state.stopped != nil { return true }
            state.continuation = continuation
            state.task = Task(operation: operation)
            arm(&state, now: .now)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
    }

    /// Hands the head to the caller; `false` when the caller is gone (the body is then dropped,
    /// which cancels the request).
    func deliver(_ response: HTTPClientResponse) -> Bool {
        let continuation = state.withLockedValue { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: response)
        return continuation != nil
    }

    /// Fails the caller waiting for the head; `false` when the head was already delivered.
    func fail(_ error: any Error) -> Bool {
        let (continuation, watchdog) = state.withLockedValue { state in
            defer {
                state.continuation = nil
                state.failure = error
                state.watchdog = nil
            }
            return (state.continuation, state.watchdog)
        }
        watchdog?.cancel()
        continuation?.resume(throwing: error)
        return continuation != nil
    }

    /// The body was read to its end.
    func finished() {
        let watchdog = state.withLockedValue { state in
            state.complete = true
            defer { state.watchdog = nil }
            return state.watchdog
        }
        watchdog?.cancel()
    }

    var isComplete: Bool { state.withLockedValue { $0.complete } }
    var endedFailure: (any Error)? { state.withLockedValue { $0.failure } }

    /// Stops the exchange: `reason` is the timeout's error, `nil` for a cancellation.
    func cancel(because reason: (any Error)?) {
        let (task, watchdog) = state.withLockedValue { state in
            if state.stopped == nil { state.stopped = .some(reason) }
            return (state.task, state.watchdog)
        }
        task?.cancel()
        if reason == nil { watchdog?.cancel() }
    }

    /// The error a failure of the task stands for: the timeout that stopped it, a cancellation,
    /// or the client's error mapped.
    func failure(for error: any Error, url: URL) -> any Error {
        let stopped = state.withLockedValue { $0.stopped }
        if let stopped { return stopped ?? CancellationError() }
        return ErrorMapping.map(error, url: url)
    }

    /// Schedules the next check for the next limit (while waiting for the consumer: within the idle
    /// period). Called under the lock.
    private func arm(_ state: inout State, now: ContinuousClock.Instant) {
        let total = timeouts.total.map { start + $0 }
        let idle = timeouts.idle.flatMap { activity.idleDeadline($0) }
        let next =
            [total, idle ?? timeouts.idle.map { now + $0 }].compactMap { $0 }.min() ?? now + .seconds(1)
        let delay = max(.zero, next - now)
        state.watchdog = eventLoop.scheduleTask(in: .nanoseconds(delay.nanosecondsClamped)) { [self] in
            check()
        }
    }

    /// The watchdog: stops the exchange when a limit elapsed, else looks again at the next one.
    private func check() {
        let now = ContinuousClock.now
        if let total = timeouts.total, now >= start + total {
            cancel(
                because: NetLayerError.timedOut(
                    reason: "the total deadline of \(Self.seconds(timeouts.total)) elapsed"))
            return
        }
        if let idle = timeouts.idle.flatMap({ activity.idleDeadline($0) }), now >= idle {
            cancel(
                because: NetLayerError.timedOut(
                    reason: "no data for \(Self.seconds(timeouts.idle)) (idle timeout)"))
            return
        }
        state.withLockedValue { state in
            // Not when the exchange ended or was stopped meanwhile (its watchdog was taken).
            guard state.watchdog != nil, state.stopped == nil else { return }
            arm(&state, now: now)
        }
    }

    private static func seconds(_ duration: Duration?) -> String {
        guard let duration else { return "?" }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return "\((seconds * 1000).rounded() / 1000) s"
    }
}
