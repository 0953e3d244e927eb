import Foundation

/// Reads an opened download's body into a partial file beside its destination and moves it into
/// place (see ``Executor/download(to:resumable:debug:)`` for the rules); asks again once, without a
/// range, when the server cannot continue the partial file.
struct DownloadConsumer {
    /// Where the file goes, checked and claimed by the caller.
    let destination: URL
    /// Keep a partial file to resume from.
    let resumable: Bool
    /// The request's URL, which the partial file's metadata names.
    let requestURL: String
    /// Sends the call, asking for the rest of a partial file when given a resume point.
    let send: (DownloadFiles.ResumePoint?) async throws(NetLayerError) -> OpenedCall

    /// The download, with `destination` checked and claimed by the caller; the restart after a 416
    /// runs under the same claim.
    func run(restarted: Bool) async throws(NetLayerError) -> Download {
        let files = DownloadFiles(destination: destination, resumable: resumable)
        // File work runs on the blocking-work queue, never on the cooperative pool.
        let resume =
            resumable
            ? await BlockingIO.shared.run { [requestURL] in files.resumePoint(for: requestURL) } : nil
        let call = try await send(resume)
        do {
            return try await save(call, files: files, resume: resume, restarted: restarted)
        } catch {
            // Every failure after the exchange counts the attempts that reached the server.
            var failure = error
            if failure.attempts == 0 { failure.attempts = call.attempts }
            throw failure
        }
    }

    /// Writes an opened download's body to its partial file and moves it into place.
    private func save(
        _ call: OpenedCall, files: DownloadFiles, resume: DownloadFiles.ResumePoint?, restarted: Bool
    ) async throws(NetLayerError) -> Download {
        call.log?.streamed(call.head)
        var offset: Int64 = 0
        // The file's size once written, when a 206's Content-Range tells it.
        var expectedSize: Int64?
        if call.head.statusCode == 206 && resume == nil {
            // Part of a file is not the file: no Range was sent, so nothing can be continued.
            call.body.cancel()
            throw .fileFailed(
                "the server answered 206 Partial Content to a download that asked for the whole file")
        }
        if let resume {
            let range =
                call.head.statusCode == 206 ? ContentRange(call.head.headerFields["Content-Range"]) : nil
            if call.head.statusCode == 416 || (range.map { $0.first != resume.offset } ?? false) {
                // The partial file cannot be continued: start over, once (a new attempt).
                call.record.setAside()
                call.body.cancel()
                call.record.nextAttempt(
                    AttemptReason(kind: .restart, statusCode: call.head.statusCode, errorCode: nil))
                files.discardUnlessInUse()
                if restarted { throw .fileFailed("the server refused to resume and to restart the download") }
                return try await run(restarted: true)
            }
            if call.head.statusCode == 206 {
                // Bytes that cannot be placed are never appended, and the partial file is dropped:
                // resuming it again would only ask the same question again.
                let checked =
                    range?.fileSize(contentLength: call.head.headerFields["Content-Length"])
                    ?? .failure(ContentRange.Contradiction("is malformed"))
                switch checked {
                case .success(let size):
                    offset = resume.offset
                    expectedSize = size
                    // Progress goes on from the bytes on disk, out of the whole file.
                    call.progress?.resumeDownload(from: offset, total: size)
                case .failure(let contradiction):
                    call.body.cancel()
                    files.discardUnlessInUse()
                    throw .fileFailed(
                        "the server's 206 answer cannot continue the download: its Content-Range \(contradiction.reason)"
                    )
                }
            } else {
                // A 200: the whole file again, and its progress from 0.
                call.progress?.resumeDownload(from: 0, total: nil)
            }
        }
        var written: Int64 = 0
        var fileSize: UInt64 = 0
        // Open (and so its lock held) until the file is in place or removed.
        var openFile: FileHandle?
        defer { try? openFile?.close() }
        do {
            let handle = try await BlockingIO.shared.run { [offset, head = call.head, requestURL] in
                try files.openPartial(appendingAt: offset, head: head, url: requestURL)
            }
            openFile = handle
            // Written where the chunks arrive (the transport's thread), not hopped to this task
            // one by one: the hop cost a download about a third more CPU per byte.
            let flusher = WriteBehind(descriptor: handle.fileDescriptor)
            defer { written = flusher.written }
            do {
                try await call.body.drain { chunk in
                    try handle.write(contentsOf: chunk)
                    flusher.wrote(chunk.count)
                }
            } catch {
                await flusher.finish()
                throw error
            }
            await flusher.finish()
            let syncError = await flusher.makeDurable()
            if syncError != 0 {
                throw NetLayerError.fileFailed(
                    "cannot flush the download to disk at \(files.partial.path): \(FileSync.describe(syncError))"
                )
            }
            fileSize = try handle.seekToEnd()
        } catch let inUse as DownloadFiles.PartialInUse {
            // Another process writes the partial file: it is left to that process.
            call.body.cancel()
            throw .fileFailed(inUse.reason)
        } catch {
            call.body.cancel()
            files.failed()
            if let failure = error as? NetLayerError, failure.code == .fileFailed { throw failure }
            if !(error is CancellationError) && !(error is URLError) && !(error is NetLayerError) {
                throw .fileFailed(
                    "cannot write the download to \(files.partial.path): \(error.localizedDescription)",
                    underlying: error)
            }
            throw call.failure(error)
        }
        if let expectedSize, fileSize != UInt64(expectedSize) {
            files.discard()
            throw .fileFailed(
                "the server's 206 answer ended the file at \(fileSize) bytes, its Content-Range at \(expectedSize)"
            )
        }
        try await Self.moveIntoPlace(files)
        call.progress?.finish(uploaded: call.request.body?.length, downloaded: written)
        return Download(
            fileURL: destination, head: call.head, bytesWritten: written, resumedFrom: offset,
            duration: .now - call.start, redirects: call.redirects, metrics: call.record.metrics)
    }

    /// ``DownloadFiles/moveIntoPlace()`` on the blocking-work queue (`fsync` and `rename`).
    private static func moveIntoPlace(_ files: DownloadFiles) async throws(NetLayerError) {
        do {
            try await BlockingIO.shared.run { try files.moveIntoPlace() }
        } catch let failure as NetLayerError {
            throw failure
        } catch {
            throw .fileFailed("cannot move the download into place: \(error)", underlying: error)
        }
    }
}
