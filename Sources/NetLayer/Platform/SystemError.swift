#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: its `errno` and the system's text for it. `errno`, `strerror` and the
/// codes named here are declared alike in Glibc, Musl and Darwin.
struct SystemError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    let code: Int32

    /// The `errno` the last failed call on this thread left; read it right after the call.
    static var last: SystemError { SystemError(code: errno) }

    /// The system's text for ``code`` (`strerror`).
    var description: String { String(cString: strerror(code)) }

    /// The call was interrupted by a signal before it did anything (`EINTR`): make it again.
    var isInterrupted: Bool { code == EINTR }

    /// No file or directory at the path (`ENOENT`).
    var isMissing: Bool { code == ENOENT }
}
