import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Raw URLSession's side of the transfer benchmark: the least a URLSession caller writes.
///
/// - Uploads: `session.upload(for:fromFile:)` on a plain session; the multipart upload sends the
///   multipart body that ``TransferFiles`` built once on disk.
/// - Download: a data task on a session whose delegate writes each chunk to a `FileHandle` as it
///   arrives (no `fsync`), on a serial delegate queue.
///
/// With `BENCH_TRANSFER_BASELINE=delegate` (a diagnostic), uploads are delegate-driven upload tasks on
/// the session that has a delegate, as a library that needs a session delegate sends them, and a
/// download ends with `fsync`, as `download(to:)` does. With `downloadtask` (a diagnostic), a download
/// is a `downloadTask(with:)` on that session: Foundation writes the file on its own queue, and the
/// delegate moves it to the destination.
///
/// Unchecked Sendable: the task state is only touched under `lock`.
final class URLSessionTransferClient: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
{
    let base: URL
    let session: URLSession
    let libraryLike: Bool
    let baseline: TransferBaseline
    private(set) var downloadSession: URLSession!
    private let lock = NSLock()
    private var downloads: [Int: Download] = [:]

    /// One delegate-driven task: a download into `handle`, or an upload whose answer is collected.
    private struct Download {
        var handle: FileHandle?
        /// `downloadtask` baseline: where the finished download is moved.
        var destination: URL?
        var body = Data()
        var written: Int64 = 0
        var chunks = 0
        var failure: (any Error)?
        var continuation: CheckedContinuation<(bytes: Int64, chunks: Int, body: Data), any Error>
    }

    private var chunksOfLastDownload = 0
    /// Chunks the delegate received in the last download (to compare chunk sizes).
    var lastDownloadChunks: Int { lock.withLock { chunksOfLastDownload } }

    init(port: Int, baseline: TransferBaseline = .plain) {
        self.baseline = baseline
        libraryLike = baseline == .delegate
        base = URL(string: "http://127.0.0.1:\(port)")!
        // The configuration NetLayer's transport uses (on Linux, no URLCache), like for like.
        session = URLSession(configuration: URLSessionTransport.defaultConfiguration)
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        downloadSession = URLSession(
            configuration: URLSessionTransport.defaultConfiguration, delegate: self, delegateQueue: queue)
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
        downloadSession.finishTasksAndInvalidate()
    }

    /// `GET /empty` on both sessions.
    func empty() async throws {
        let request = URLRequest(url: base.appendingPathComponent("empty"))
        _ = try await Self.checked(session.data(for: request))
        _ = try await Self.checked(downloadSession.data(for: request))
    }

    func transfer(_ kind: TransferKind, files: TransferFiles, destination: URL) async throws -> Int64 {
        switch kind {
        case .multipart:
            // `spooled`: the multipart file is written inside the timed call, as a raw URLSession
            // caller on Linux must do to send it with its exact length (NetLayer's spool does too).
            let body = baseline == .spooled ? try Self.copy(files.multipart) : files.multipart
            defer { if baseline == .spooled { try? FileManager.default.removeItem(at: body) } }
            let count = try await upload(body, contentType: files.multipartContentType)
            guard count == files.multipartLength else {
                throw BenchError(
                    "URLSession multipart: the server counted \(count), not \(files.multipartLength)")
            }
            return count
        case .file:
            let count = try await upload(files.source, contentType: "application/octet-stream")
            guard count == files.bytes else {
                throw BenchError("URLSession file upload: the server counted \(count), not \(files.bytes)")
            }
            return count
        case .download:
            let result = try await download(files.bytes, to: destination)
            lock.withLock { chunksOfLastDownload = result.chunks }
            return result.bytes
        }
    }

    /// A copy of `file` beside it, written in 1 MiB pieces as NetLayer's spool writes.
    private static func copy(_ file: URL) throws -> URL {
        let copy = file.deletingLastPathComponent().appendingPathComponent("spooled-\(UUID().uuidString).bin")
        guard FileManager.default.createFile(atPath: copy.path, contents: nil) else {
            throw BenchError("cannot create \(copy.path)")
        }
        let reader = try FileHandle(forReadingFrom: file)
        defer { try? reader.close() }
        let writer = try FileHandle(forWritingTo: copy)
        defer { try? writer.close() }
        while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {
            try writer.write(contentsOf: chunk)
        }
        return copy
    }

    private func upload(_ file: URL, contentType: String) async throws -> Int64 {
        var request = URLRequest(url: base.appendingPathComponent("sink"))
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        let data =
            libraryLike
            ? try await run(downloadSession.uploadTask(with: request, fromFile: file), into: nil).body
            : try await Self.checked(session.upload(for: request, fromFile: file))
        guard let text = String(data: data, encoding: .utf8), let count = Int64(text) else {
            throw BenchError("the sink answered \(String(decoding: data, as: UTF8.self))")
        }
        return count
    }

    private func download(_ bytes: Int64, to destination: URL) async throws -> (bytes: Int64, chunks: Int) {
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw BenchError("cannot create \(destination.path)")
        }
        if baseline == .downloadtask {
            let task = downloadSession.downloadTask(with: base.appendingPathComponent("bytes/\(bytes)"))
            let result = try await run(task, into: nil, destination: destination)
            return (result.bytes, result.chunks)
        }
        let handle = try FileHandle(forWritingTo: destination)
        let result = try await run(
            downloadSession.dataTask(with: base.appendingPathComponent("bytes/\(bytes)")), into: handle)
        return (result.bytes, result.chunks)
    }

    /// Runs a task on the delegate session: its body goes to `handle`, or is collected when `nil`.
    private func run(_ task: URLSessionTask, into handle: FileHandle?, destination: URL? = nil) async throws
        -> (
            bytes: Int64, chunks: Int, body: Data
        )
    {
        try await withCheckedThrowingContinuation { continuation in
            lock.withLock {
                downloads[task.taskIdentifier] = Download(
                    handle: handle, destination: destination, continuation: continuation)
            }
            task.resume()
        }
    }

    private static func checked(_ result: (Data, URLResponse)) throws -> Data {
        guard let status = (result.1 as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw BenchError("URLSession: unexpected response \(result.1)")
        }
        return result.0
    }

    // MARK: URLSessionDataDelegate (the download session only)

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if !(200..<300).contains(status) {
            lock.withLock {
                downloads[dataTask.taskIdentifier]?.failure = BenchError("download: status \(status)")
            }
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            guard var download = downloads[dataTask.taskIdentifier], download.failure == nil else { return }
            do {
                if let handle = download.handle {
                    try handle.write(contentsOf: data)
                } else {
                    download.body.append(data)
                }
                download.written += Int64(data.count)
                download.chunks += 1
            } catch {
                download.failure = error
                dataTask.cancel()
            }
            downloads[dataTask.taskIdentifier] = download
        }
    }

    // MARK: URLSessionDownloadDelegate (the `downloadtask` baseline only)

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        lock.withLock {
            downloads[downloadTask.taskIdentifier]?.written = totalBytesWritten
            downloads[downloadTask.taskIdentifier]?.chunks += 1
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
    ) {
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        let destination = lock.withLock { downloads[downloadTask.taskIdentifier]?.destination }
        var failure: (any Error)? =
            (200..<300).contains(status) ? nil : BenchError("download: status \(status)")
        if failure == nil, let destination {
            do {
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.moveItem(at: location, to: destination)
            } catch {
                failure = error
            }
        }
        try? FileManager.default.removeItem(at: location)
        if let failure {
            lock.withLock { downloads[downloadTask.taskIdentifier]?.failure = failure }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let download = lock.withLock({ downloads.removeValue(forKey: task.taskIdentifier) }) else {
            return
        }
        var failure = download.failure ?? error
        if libraryLike, failure == nil {
            do { try download.handle?.synchronize() } catch { failure = error }
        }
        try? download.handle?.close()
        if let failure {
            download.continuation.resume(throwing: failure)
        } else {
            download.continuation.resume(returning: (download.written, download.chunks, download.body))
        }
    }
}
