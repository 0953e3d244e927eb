#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flushing a file's bytes to storage, one branch per OS, each written against that OS's headers.
///
/// - Linux: `fdatasync` for a flush while the file is still being written (the data, not every
///   metadata change), `fsync` before a file is renamed into place.
/// - Darwin: no SDK declares `fdatasync`, so a flush while writing is `fsync`. Darwin's `fsync`
///   hands the data to the drive but does not make the drive write its own cache (fsync(2) on
///   macOS), so before a rename that must not outlive its data, `fcntl(F_FULLFSYNC)` asks for that;
///   a file system that refuses it (some network volumes) gets `fsync`.
///
/// Both calls block: callers run them off Swift's cooperative pool (``BlockingIO``, or the
/// download's flush queue).
enum FileSync {
    /// Starts writing the file's data to storage (a background flush while a download goes on).
    /// - Returns: `0`, or `-1` with `errno` set.
    @discardableResult
    static func flushData(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc) || canImport(Musl)
            return fdatasync(descriptor)
        #else
            return fsync(descriptor)
        #endif
    }

    /// Makes the file's data durable before it is renamed into place.
    /// - Returns: `0`, or the `errno` of the failed call.
    static func makeDurable(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor) == 0 ? 0 : SystemError.last.code
    }

    /// The system's text for an `errno` value.
    static func describe(_ code: Int32) -> String {
        SystemError(code: code).description
    }
}
