import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A value behind a lock: the one lock-guarded box the library's shared state uses (retry tokens,
/// attempt records, concurrency slots, refresh flights, response bodies, transfer state machines).
///
/// A handle: copies share the one value and lock. They live in one buffer (a `ManagedBuffer` whose
/// header is the value and whose one element is the lock), so a box costs one allocation, where a
/// class holding the value beside an `NSLock` cost three on Linux (the box, the `NSLock` object and
/// its mutex), and every call makes several boxes.
///
/// Like the standard library's `Mutex` (which needs macOS 15), the value need not be `Sendable`:
/// it goes in as `sending` and is only reached inside ``withLock(_:)``, whose result goes out as
/// `sending`, so nothing of the value escapes the lock unless it is safe to (a spill file's
/// handles stay behind it). Unchecked Sendable: every access to the value goes through the lock.
struct LockedValue<Value>: @unchecked Sendable {
    private let storage: Storage

    init(_ value: sending Value) { storage = Storage.make(value) }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try storage.withLock(body)
    }

    #if canImport(Darwin)
        typealias PlatformLock = os_unfair_lock
    #else
        typealias PlatformLock = pthread_mutex_t
    #endif

    /// The value (the header) and the lock (the one element).
    private final class Storage: ManagedBuffer<Value, PlatformLock> {
        static func make(_ value: sending Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            // `create` returns an instance of the class it is called on.
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { lock in
                #if canImport(Darwin)
                    lock.initialize(to: os_unfair_lock())
                #else
                    lock.initialize(to: pthread_mutex_t())
                    _ = pthread_mutex_init(lock, nil)
                #endif
            }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { lock in
                #if !canImport(Darwin)
                    _ = pthread_mutex_destroy(lock)
                #endif
                _ = lock.deinitialize(count: 1)
            }
        }

        func withLock<Result>(
            _ body: (inout sending Value) throws -> sending Result
        ) rethrows -> sending Result {
            // The pointers stay valid while `self` lives, which the caller's reference ensures. The
            // value is moved out for `body` and back: `nonisolated(unsafe)` tells the region checker
            // what the lock guarantees (nobody else reaches the value meanwhile), as the standard
            // library's `Mutex` does with its builtin address.
            nonisolated(unsafe) let value = withUnsafeMutablePointerToHeader { $0 }
            let lock = withUnsafeMutablePointerToElements { $0 }
            #if canImport(Darwin)
                os_unfair_lock_lock(lock)
                defer { os_unfair_lock_unlock(lock) }
            #else
                _ = pthread_mutex_lock(lock)
                defer { _ = pthread_mutex_unlock(lock) }
            #endif
            nonisolated(unsafe) var local = value.move()
            defer { value.initialize(to: local) }
            return try body(&local)
        }
    }
}
