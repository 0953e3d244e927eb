#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copying a byte range of one file into another, one branch per OS, each written against that
/// OS's headers.
///
/// - Linux (Glibc, Musl): `sendfile`, from the kernel's cache to the kernel's cache without a copy
///   through this process; a file system that cannot (`EINVAL`, `ENOSYS`, `EOPNOTSUPP`: before
///   Linux 6.5 a regular file as the target on some FUSE and network file systems) gets
///   ``copyByReading(from:at:count:to:)``.
/// - Darwin: `sendfile` only writes to sockets, so always ``copyByReading(from:at:count:to:)``.
///
/// Either way the result is the same: the bytes at `offset` of the source appended at the
/// destination's current offset. Blocking: callers run it off the cooperative pool.
enum FileCopy {
    /// Copies up to `count` bytes of `source` from `offset` (its own offset is not used or moved)
    /// to `destination` at its current offset.
    /// - Returns: The bytes copied, fewer than `count` only at the source's end; `0` when `offset`
    ///   is at or past it.
    static func copy(from source: Int32, at offset: Int64, count: Int, to destination: Int32)
        throws(SystemError) -> Int
    {
        #if canImport(Glibc) || canImport(Musl)
            var position = off_t(offset)
            while true {
                let moved = sendfile(destination, source, &position, count)
                if moved >= 0 { return moved }
                let error = SystemError.last
                if error.isInterrupted { continue }
                if error.code == EINVAL || error.code == ENOSYS || error.code == EOPNOTSUPP { break }
                throw error
            }
        #endif
        return try copyByReading(from: source, at: offset, count: count, to: destination)
    }

    /// Up to 1 MiB read and written at a time.
    static let pieceSize = 1 << 20

    /// ``copy(from:at:count:to:)`` through this process: `pread` from the source, `write` to the
    /// destination, a piece at a time.
    static func copyByReading(from source: Int32, at offset: Int64, count: Int, to destination: Int32)
        throws(SystemError) -> Int
    {
        guard count > 0 else { return 0 }
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(count, pieceSize), alignment: 16)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return 0 }
        var copied = 0
        while copied < count {
            let read = pread(source, base, min(buffer.count, count - copied), off_t(offset + Int64(copied)))
            if read < 0 {
                let error = SystemError.last
                if error.isInterrupted { continue }
                throw error
            }
            if read == 0 { break }
            try writeAll(destination, UnsafeRawBufferPointer(start: base, count: read))
            copied += read
        }
        return copied
    }

    /// Writes all of `bytes` at the destination's current offset, again after a short write.
    private static func writeAll(_ destination: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = write(destination, next, left)
            if written < 0 {
                let error = SystemError.last
                if error.isInterrupted { continue }
                throw error
            }
            next += written
            left -= written
        }
    }
}
