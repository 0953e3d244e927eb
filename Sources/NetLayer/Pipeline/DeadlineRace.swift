/// Bounds code NetLayer does not control — interceptors, an authenticator, a refresh — by the
/// call's total deadline.
///
/// The operation runs in a task of its own (task-local values and priority are inherited); the
/// caller gets its result or, at the deadline, ``NetLayerError/Code/timedOut`` while the
/// operation is cancelled. Code that ignores cancellation can finish late in the background, but
/// the call no longer waits for it. Cancelling the caller cancels the operation.
enum DeadlineRace {
    /// Runs `operation`, giving up at `deadline`.
    /// - Parameters:
    ///   - deadline: `nil`: no bound; the operation runs inline, without a task.
    ///   - total: The call's total deadline as given, for the error message.
    ///   - timedOut: The reason the timed-out error gives; default: the total deadline elapsed.
    /// - Throws: The operation's error, `NetLayerError.timedOut` at the deadline, or
    ///   `NetLayerError.cancelled` when the caller is cancelled first.
    static func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant?, total: Duration?, timedOut reason: String? = nil,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard let deadline else { return try await operation() }
        let gate = OnceResult<Value>()
        let work = Task { gate.resume(with: await Result(awaiting: operation)) }
        let timer = Task {
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            let elapsed = total.map { "the total deadline of \($0.formattedSeconds) elapsed" }
            gate.resume(
                with: .failure(NetLayerError.timedOut(reason ?? elapsed ?? "the total deadline elapsed")))
        }
        defer {
            timer.cancel()
            work.cancel()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in gate.set(continuation) }
        } onCancel: {
            gate.resume(with: .failure(NetLayerError.cancelled))
        }
    }
}

/// A continuation resumed once with whichever result comes first (a result may arrive before the
/// continuation is set).
final class OnceResult<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var done = false
    }
    private let state = LockedValue(State())

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            if let early = state.early, !state.done {
                state.done = true
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard !state.done else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    /// Catches the outcome of an async operation.
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
