import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate's queue: serial, so callbacks arrive in order.
enum DelegateQueue {
    /// A serial queue named `name`; on Linux one that gives URLSession backpressure (see
    /// ``BackpressureOperationQueue``).
    static func make(name: String) -> OperationQueue {
        #if canImport(FoundationNetworking)
            let queue: OperationQueue = BackpressureOperationQueue()
        #else
            let queue = OperationQueue()
        #endif
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        return queue
    }
}

#if canImport(FoundationNetworking)
    /// Linux: a delegate queue that makes URLSession's network thread wait while the queue is far
    /// behind.
    ///
    /// Linux URLSession hands every received chunk (16 KiB) to the delegate queue as an operation, from
    /// its libcurl thread, and never waits: when the delegate is slower than the network (a download
    /// written to a disk slower than loopback), the operations pile up without bound, about 200 MB for
    /// a 1 GiB download. It cannot pause a task either (`suspend()` drops the transfer). This queue
    /// gives it the backpressure it lacks: once ``highWater`` operations wait, the thread adding more
    /// waits until the queue is down to ``lowWater``. libcurl then stops reading the socket, TCP's
    /// window closes, and the server waits; memory stays at about 4 MiB of chunks.
    ///
    /// Only threads that may wait are made to: never a Swift task's thread (the cooperative pool must
    /// not block), never this queue's own thread (it would wait for itself). A wait also ends when the
    /// queue has made no progress for ``stallLimit`` (an operation that waits for URLSession's thread
    /// would otherwise never finish): the operation then goes in, so at worst one more chunk per
    /// ``stallLimit`` is queued, never a deadlock.
    ///
    /// Unchecked Sendable: restated from `OperationQueue`, which is unchecked itself; the counters
    /// are only touched with `condition` locked (a condition variable: `LockedValue` cannot wait).
    final class BackpressureOperationQueue: OperationQueue, @unchecked Sendable {
        /// 256 operations: about 4 MiB of 16 KiB chunks, enough that the delegate never starves.
        static let highWater = 256
        /// Waiting threads go on once the queue is down to half.
        static let lowWater = 128
        /// How long a waiting thread waits for the queue to make any progress before it goes on.
        static let stallLimit: TimeInterval = 0.25

        private let condition = NSCondition()
        private var pending = 0
        private var finished: UInt64 = 0
        private var waiting = 0
        private var runner: ThreadIdentity?
        private var peak = 0
        private var waits = 0

        /// The most operations queued at once so far (for tests).
        var peakPending: Int { condition.withLock { peak } }
        /// How many times a thread has waited (for tests).
        var waitCount: Int { condition.withLock { waits } }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            let mayWait = withUnsafeCurrentTask { $0 == nil }
            condition.lock()
            if mayWait && pending >= Self.highWater && !isRunner {
                waits += 1
                waiting += 1
                while pending > Self.lowWater {
                    let before = finished
                    let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.stallLimit))
                    if !signalled && finished == before { break }
                }
                waiting -= 1
            }
            pending += 1
            peak = max(peak, pending)
            condition.unlock()
            super.addOperation { [self] in
                condition.withLock { runner = .current }
                block()
                condition.withLock {
                    runner = nil
                    pending -= 1
                    finished &+= 1
                    if waiting > 0 && pending <= Self.lowWater { condition.broadcast() }
                }
            }
        }

        /// Whether the calling thread is running one of this queue's operations (lock held).
        private var isRunner: Bool {
            runner == .current
        }
    }
#endif
