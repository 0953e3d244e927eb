import Foundation

/// Spooled request bodies: a body of several segments (multipart with file parts, a file range)
/// written to a temporary file a chunk at a time, for Linux URLSession, which sends a stream only
/// with chunked encoding but a file with its exact `Content-Length`.
enum BodySpool {
    /// `<temporary directory>/NetLayer-<random>`: one per transport, created on first use.
    static func directoryForNewTransport() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "NetLayer-\(UUID().uuidString.prefix(13))", isDirectory: true)
    }

    /// Writes `body` into a new file in `directory` (created readable by the user only), off the
    /// caller's thread, stopping between chunks when the calling task is cancelled.
    /// - Returns: The file; the caller removes it when the task ends.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` when a segment cannot be read or the spool
    ///   cannot be written; `CancellationError`. Nothing is left behind when it throws.
    static func write(_ body: RequestBody, into directory: URL) async throws -> URL {
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try writeNow(body, into: directory, stop: stop) })
                }
            }
        } onCancel: {
            stop.set()
        }
    }

    private static func writeNow(_ body: RequestBody, into directory: URL, stop: StopFlag) throws -> URL {
        let manager = FileManager.default
        let file = directory.appendingPathComponent("body-\(UUID().uuidString)")
        do {
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard manager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw NetLayerError.encodingFailed("cannot create the spool file \(file.path)")
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            var reader = SegmentReader(segments: body.segments, chunkSize: 1 << 20)
            var written: Int64 = 0
            while let chunk = try reader.next() {
                if stop.isSet { throw CancellationError() }
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
            }
            if written != body.length {
                throw NetLayerError.encodingFailed("the body's files changed size after the request was made")
            }
            return file
        } catch let error as NetLayerError {
            remove(file)
            throw error
        } catch is CancellationError {
            remove(file)
            throw CancellationError()
        } catch {
            remove(file)
            throw NetLayerError.encodingFailed(
                "cannot spool the request body to \(directory.path): \(error.localizedDescription)",
                underlying: error)
        }
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A flag set once from any thread. Unchecked Sendable: guarded by `lock`.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
