import Dispatch

/// Where blocking work runs: file reads and writes, `fsync`, `sendfile`, spool copies. A dispatch
/// queue of its own, never a thread of Swift's cooperative pool, which is for computing: a pool
/// thread held by a disk (or a slow network file system) is one that timers, cancellation and
/// every other task wait for.
///
/// A value wrapping one concurrent queue; ``shared`` serves the library, tests make their own to
/// hold work back (``queue``'s `suspend()`).
struct BlockingIO: Sendable {
    /// The queue the work runs on.
    let queue: DispatchQueue

    /// A queue of its own, named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// The library's queue for blocking work.
    static let shared = BlockingIO(label: "NetLayer.BlockingIO")

    /// Runs `work` on ``queue`` and returns its result; the calling task waits without holding a
    /// thread.
    func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// ``run(_:)`` for work that cannot fail.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
