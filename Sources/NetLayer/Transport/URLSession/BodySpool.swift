import Foundation

/// Spooled request bodies: a body of several segments (multipart with file parts, a file range)
/// written to a temporary file a chunk at a time, for Linux URLSession, which sends a stream only
/// with chunked encoding but a file with its exact `Content-Length`.
enum BodySpool {
    /// `<temporary directory>/NetLayer-<random>`: one per transport, created when a file is put in
    /// it and removed again when its last file goes, so a process that never releases its transport
    /// leaves no empty directory behind.
    static func directoryForNewTransport() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "NetLayer-\(UUID().uuidString.prefix(13))", isDirectory: true)
    }

    /// Creates an empty file named `<prefix>-<random>` in `directory`, creating the directory
    /// (readable by the user only) if needed; the file is readable by the user only.
    /// Another task may remove the directory between the two steps (see ``removeFile(_:)``), so a
    /// few attempts are made.
    /// - Throws: ``NetLayerError/Code/fileFailed`` when the file cannot be created.
    static func createPrivateFile(prefix: String, in directory: URL) throws -> URL {
        let manager = FileManager.default
        let file = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        for _ in 0..<3 {
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if manager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) {
                return file
            }
        }
        throw NetLayerError.fileFailed("cannot create a temporary file in \(directory.path)")
    }

    /// Removes a file made by ``createPrivateFile(prefix:in:)``, then its directory if that is now
    /// empty (`rmdir` refuses a directory that still holds a file, so a concurrent spool survives).
    static func removeFile(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
        SystemFile.removeDirectoryIfEmpty(file.deletingLastPathComponent())
    }

    /// Writes `body` into a new file in `directory` (created readable by the user only), on
    /// ``BlockingIO`` (never a thread of Swift's cooperative pool), stopping between chunks when the
    /// calling task is cancelled.
    /// - Returns: The file; the caller removes it when the task ends.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` when a segment cannot be read or the spool
    ///   cannot be written; `CancellationError`. Nothing is left behind when it throws.
    static func write(_ body: RequestBody, into directory: URL, io: BlockingIO = .shared) async throws -> URL
    {
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await io.run { try writeNow(body, into: directory, stop: stop) }
        } onCancel: {
            stop.set()
        }
    }

    /// 4 MiB per write: few calls, and a cancellation is noticed within milliseconds.
    static let chunkSize = 4 << 20

    private static func writeNow(_ body: RequestBody, into directory: URL, stop: StopFlag) throws -> URL {
        let file: URL
        do {
            file = try createPrivateFile(prefix: "body", in: directory)
        } catch {
            throw NetLayerError.encodingFailed(
                "cannot spool the request body to \(directory.path): \(error.localizedDescription)",
                underlying: error)
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            var reader = SegmentReader(segments: body.segments, chunkSize: Self.chunkSize)
            var written: Int64 = 0
            while let count = try reader.copyNext(to: handle) {
                if stop.isSet { throw CancellationError() }
                written += count
            }
            if written != body.length {
                throw NetLayerError.encodingFailed("the body's files changed size after the request was made")
            }
            return file
        } catch let error as NetLayerError {
            removeFile(file)
            throw error
        } catch is CancellationError {
            removeFile(file)
            throw CancellationError()
        } catch {
            removeFile(file)
            throw NetLayerError.encodingFailed(
                "cannot spool the request body to \(directory.path): \(error.localizedDescription)",
                underlying: error)
        }
    }

    /// Removes a spooled body made by ``write(_:into:io:)`` at once, but leaves the kernel's work of
    /// freeing its pages (0.2 s for 1 GiB on Linux, measured) to a background thread: the file is
    /// held open while its name goes, and closed there. (Opened without blocking: whatever sits at
    /// that name, a FIFO cannot hold the call.)
    static func discard(_ file: URL) {
        let held = try? SystemFile.openForReading(file.path)
        removeFile(file)
        if let held {
            releaseQueue.async { SystemFile.close(held) }
        }
    }

    /// Closes discarded spools: a queue of its own, so those closes do not wait behind spool
    /// writers, which block their threads.
    private static let releaseQueue = DispatchQueue(label: "NetLayer.SpoolRelease", qos: .utility)

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A flag set once from any thread.
final class StopFlag: Sendable {
    private let value = LockedValue(false)
    /// Whether ``set()`` has run.
    var isSet: Bool { value.withLock { $0 } }
    /// Sets the flag.
    func set() { value.withLock { $0 = true } }
}
