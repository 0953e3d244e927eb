import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file calls NetLayer makes on descriptors, for every OS.
///
/// Each call here is declared alike in Glibc, Musl and Darwin (`open`, `close`, `fstat`, `fcntl`,
/// `flock`, `rename`, `rmdir`, `getuid` and the flags used; `mode_t` is `UInt32` on Linux and `UInt16` on
/// Darwin, which the literal mode fits): one line serves all three. What differs per OS lives in
/// ``FileSync`` and ``FileCopy``. None of these waits on another process (`flock` is asked not to),
/// but they touch the file system: async callers run them off the cooperative pool (``BlockingIO``)
/// unless they are one metadata call.
enum SystemFile {
    /// Opens `path` for writing, creating it with mode `0666` less the umask; not truncated. Opened
    /// without blocking (a FIFO at `path` cannot hold the thread) and closed on `exec`.
    static func openForWriting(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw SystemError.last }
        return descriptor
    }

    /// Opens `path` for reading, without blocking (a FIFO at `path` cannot hold the thread) and
    /// closed on `exec`.
    static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError.last }
        return descriptor
    }

    /// Closes `descriptor`; an error (the descriptor is gone either way) is ignored.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #elseif canImport(Darwin)
            _ = Darwin.close(descriptor)
        #endif
    }

    /// Clears `O_NONBLOCK`: reads and writes of a regular file opened without blocking go back to
    /// the ordinary mode.
    static func setBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    }

    /// The size of the file behind `descriptor` when it is a regular file (`fstat`); `nil` for
    /// anything else (a FIFO, a directory, a device) or when `fstat` fails.
    static func regularFileSize(_ descriptor: Int32) -> Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// Takes the exclusive advisory lock on the open file (`flock`), without waiting.
    /// - Returns: `false` when another open file description holds a lock on it (another process,
    ///   or another `open` in this one), or the file system refuses locks.
    static func tryLockExclusive(_ descriptor: Int32) -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// Renames `source` to `destination` in one step, replacing a file there (`rename`).
    static func rename(_ source: String, to destination: String) throws(SystemError) {
        #if canImport(Glibc)
            let result = Glibc.rename(source, destination)
        #elseif canImport(Musl)
            let result = Musl.rename(source, destination)
        #elseif canImport(Darwin)
            let result = Darwin.rename(source, destination)
        #endif
        if result != 0 { throw SystemError.last }
    }

    /// The real user id of the process (`getuid`; `uid_t` is `UInt32` on Linux and Darwin).
    static func currentUserID() -> UInt32 { UInt32(getuid()) }

    /// Removes the directory when it is empty (`rmdir` refuses one that holds anything).
    static func removeDirectoryIfEmpty(_ directory: URL) {
        _ = directory.withUnsafeFileSystemRepresentation { path in path.map { rmdir($0) } }
    }
}

extension SystemFile {
    /// Reads up to `count` bytes at `offset` (`pread`: the descriptor's own offset is not used or
    /// moved); fewer only at the file's end, none past it.
    static func read(_ descriptor: Int32, at offset: Int64, count: Int) throws(SystemError) -> Data {
        guard count > 0 else { return Data() }
        var data = Data(count: count)
        var filled = 0
        var failure: SystemError?
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let read = pread(descriptor, base + filled, count - filled, off_t(offset + Int64(filled)))
                if read > 0 {
                    filled += read
                } else if read == 0 {
                    return
                } else {
                    let error = SystemError.last
                    if error.isInterrupted { continue }
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        if filled < count { data.removeSubrange(filled...) }
        return data
    }
}

/// An open descriptor, closed when the last copy of its owner goes (a reader dropped halfway
/// through a body leaves nothing open).
final class OpenFile: Sendable {
    /// The descriptor; valid while this object lives.
    let descriptor: Int32

    /// Takes ownership of `descriptor`.
    init(_ descriptor: Int32) { self.descriptor = descriptor }

    deinit { SystemFile.close(descriptor) }
}
