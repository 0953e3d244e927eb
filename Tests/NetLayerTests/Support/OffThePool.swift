import Foundation

/// Runs `work` on a thread of its own and returns its result, so that seconds of a test's computing
/// or blocking I/O do not hold a thread of Swift's cooperative pool.
///
/// Swift Testing runs every test on that pool, which has one thread per core (two in CI). A test
/// that writes a 48 MiB file or parses every split of every fixture holds a thread until it is
/// done, and each timer and cancellation of every other test waits for a free one: at the start of
/// a parallel run under the thread sanitizer, the stub-delay tests' 200 ms timeouts took over 50 s.
/// Assert on the result afterwards, in the test's task (an `#expect` on another thread is not
/// attributed to the test).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

extension TestPattern {
    /// `writeFile(at:length:seed:)` on a thread of its own (see `offThePool`).
    static func writeFileOffThePool(at url: URL, length: Int64, seed: UInt64 = 0) async throws {
        try await offThePool { try writeFile(at: url, length: length, seed: seed) }
    }
}
