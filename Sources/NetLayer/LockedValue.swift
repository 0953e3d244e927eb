import Foundation

/// A value behind a lock: the one lock-guarded box the library's shared state uses (retry tokens,
/// attempt records, concurrency slots, refresh flights). Unchecked Sendable: every access to
/// `value` goes through `lock`.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
