#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which thread runs now, to tell "the thread that runs this queue's operation" from others.
///
/// `pthread_self` and `pthread_equal` are declared in Glibc, Musl and Darwin alike; `pthread_t` is
/// an integer on Glibc and a pointer on Musl and Darwin, so threads are compared with
/// `pthread_equal`, never by value. Unchecked Sendable: an identity is only compared, never used
/// to reach the thread.
struct ThreadIdentity: Equatable, @unchecked Sendable {
    private let thread: pthread_t

    /// The calling thread.
    static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    /// Whether `left` and `right` are one thread.
    static func == (left: ThreadIdentity, right: ThreadIdentity) -> Bool {
        pthread_equal(left.thread, right.thread) != 0
    }
}
