import Foundation

/// A value guarded by one `NSCondition`, for state shared between the server's threads and the
/// tasks that read the records.
///
/// `@unchecked Sendable` because the compiler cannot see the locking: `value` is only ever read or
/// written inside `withLock` / `wait`, i.e. while `condition` is held, so handing the box to several
/// threads is safe. `Value` must itself be `Sendable` so nothing non-sendable escapes through it.
/// (`Synchronization.Mutex` would do, but needs macOS 15 / iOS 18.)
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value, then wakes every thread blocked in `wait`.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Blocks until `predicate` holds or `timeout` elapses. Returns whether the predicate held.
    @discardableResult
    func wait(timeout: Duration, until predicate: (Value) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.loopbackSeconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(value) {
            if !condition.wait(until: deadline) {
                return predicate(value)
            }
        }
        return true
    }
}

extension Duration {
    /// The duration as (fractional) seconds.
    var loopbackSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded down, never negative, at most a week.
    var loopbackMilliseconds: Int {
        max(0, Int(min(loopbackSeconds, 7 * 86_400) * 1000))
    }
}
