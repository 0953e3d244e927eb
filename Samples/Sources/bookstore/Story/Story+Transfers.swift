import BookstoreServer
import Foundation
import NetLayer

/// Files, progress, downloads and streams (Docs/Transfers.md). Every temporary file lives in a
/// directory of the step's own, removed when the step ends.
extension Story {
    /// A 4 MiB file as a multipart part with a progress bar, then as a raw body and in ranged parts.
    func uploadLargeCover(for book: Book) async throws {
        begin(
            "Upload a 4 MiB cover scan with a progress bar (files: [\"cover\": .file(url)], progressUpdates())"
        )
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cover-scan.tiff")
        try Self.writePseudoRandomFile(file, bytes: 4 << 20)
        let expected = try Checksum.of(file: file)
        let bar = ProgressBar("⇡ cover-scan.tiff", direction: .upload)
        defer { bar.end() }

        let (upload, updates) = api.covers().uploadCall(bookID: book.id, file: file, caption: "Scan")
            .progressUpdates()
        async let stored = upload.execute(model: Cover.self)
        for await event in updates where event.direction == .upload {
            bar.show(event)  // runs on the caller's actor: here the main actor
        }
        let cover = try await stored

        let progress = bar.summary
        try expect(
            cover.bytes == 4 << 20 && cover.checksum == expected,
            "large cover: the server got \(cover.bytes) bytes (\(cover.checksum)), sent \(4 << 20) (\(expected))"
        )
        try expect(
            progress.finished && progress.monotonic && progress.events >= 2,
            "large cover: progress \(progress.events) events, monotonic \(progress.monotonic), finished \(progress.finished)"
        )
        Console.ok(
            "the server received \(cover.bytes) bytes, checksum \(cover.checksum) matches; \(progress.events) progress events, monotonic, one final"
        )

        begin("The same scan as the raw body (Body.file) and in 1.5 MiB parts (Body.file with a range each)")
        let raw = try await api.covers().replace(bookID: book.id, file: file)
        try expect(
            raw.bytes == 4 << 20 && raw.checksum == expected && raw.contentType == "image/tiff"
                && raw.filename == "cover-scan.tiff",
            "raw cover: stored \(raw.filename) (\(raw.contentType)), \(raw.bytes) bytes, \(raw.checksum)")
        Console.ok("PUT \(raw.bytes) bytes as \(raw.contentType), checksum matches")
        let parts = try await api.uploads().upload(file, as: "scan-\(book.id)", partSize: 1_536 * 1024)
        var offset: Int64 = 0
        for part in parts {
            let range = offset..<offset + part.bytes
            let local = try Checksum.of(file: file, range: range)
            try expect(
                part.checksum == local,
                "part \(part.part) (\(range)): the server hashed \(part.checksum), not \(local)")
            Console.info(
                "part \(part.part): bytes \(range.lowerBound)..<\(range.upperBound), checksum matches")
            offset = range.upperBound
        }
        try expect(
            parts.map(\.part) == [1, 2, 3] && offset == 4 << 20,
            "parts: \(parts.map(\.part)) covering \(offset) bytes, expected 1-3 covering \(4 << 20)")
        Console.ok("3 parts, \(offset) bytes in all, each checked against its range of the file")
        record(
            "uploaded a 4 MiB file three ways (multipart with progress, raw body, 3 ranged parts), checksums matched"
        )
    }

    /// The export to a file with a progress closure; the file it replaces is swapped in one step.
    func downloadExport() async throws -> Download {
        begin("Download the inventory export (CSV, 3.2 MB) to a file, with a progress closure")
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("inventory.csv")
        try Data("an older export\n".utf8).write(to: file)
        let bar = ProgressBar("⇣ inventory.csv", direction: .download)
        defer { bar.end() }

        let before = await server.exportTransfers().count
        let download = try await api.export().download(to: file) { event in
            bar.show(event)  // a transport thread: keep it short
        }
        let served = try await exportTransfers(after: before)[0]

        let etag = download.head.headerFields["ETag"] ?? ""
        let size = Int64(try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? -1)
        let checksum = try Checksum.of(file: file)
        try expect(download.head.statusCode == 200, "export: status \(download.head.statusCode)")
        try expect(
            served.completed && served.sent == download.fileSize,
            "export: the server sent \(served.sent) bytes, the client wrote \(download.fileSize)")
        try expect(
            size == download.fileSize && download.head.headerFields["Content-Length"] == "\(size)",
            "export: \(size) bytes on disk, \(download.fileSize) written, Content-Length \(download.head.headerFields["Content-Length"] ?? "-")"
        )
        try expect(etag == "\"\(checksum)\"", "export: the file hashes to \(checksum), the ETag is \(etag)")
        let rows = try Self.rowCount(file)
        try expect(rows == 60_001, "export: \(rows) lines, expected a header and 60000 rows")
        try expect(bar.summary.finished, "export: no final progress event")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        try expect(left == ["inventory.csv"], "export: the directory holds \(left), not just inventory.csv")
        Console.ok(
            "\(download.fileSize) bytes in \(download.duration.inSeconds), \(rows - 1) rows, checksum = ETag, the older file replaced, no temporary file left"
        )
        record("downloaded the \(download.fileSize)-byte export to a file; checksum matched its ETag")
        return download
    }

    /// An interrupted resumable download, resumed with Range + If-Range; then one whose file changed
    /// meanwhile, so the server sends it whole.
    func resumeExport(_ full: Download) async throws {
        begin(
            "Interrupt a resumable download after 1 MiB and resume it (Range + If-Range: 206, or 200 after a change)"
        )
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("inventory.csv")
        let export = api.export()

        let before = await server.exportTransfers().count
        let kept = try await interruptedDownload(of: export, to: file)
        // Later: the same call continues from the partial file.
        let download = try await export.downloadRetrying(to: file)

        Console.info("first attempt: .cancelled, \(kept) bytes kept in .inventory.csv.netlayer-partial")
        try expect(kept > 0 && kept < full.fileSize, "resume: \(kept) bytes were kept")
        try expect(
            download.head.statusCode == 206 && download.resumedFrom == kept,
            "resume: status \(download.head.statusCode), resumed from \(download.resumedFrom), \(kept) kept")
        let checksum = try Checksum.of(file: file)
        try expect(
            download.fileSize == full.fileSize && download.head.headerFields["ETag"] == "\"\(checksum)\"",
            "resume: \(download.fileSize) bytes hashing to \(checksum); expected \(full.fileSize) bytes")
        let responses = try await exportTransfers(after: before, expected: 2)
        guard let served = responses.first(where: { $0.status == 206 }) else {
            throw StoryFailure(message: "resume: the server answered \(responses.map(\.status))")
        }
        try expect(
            served.range.lowerBound == kept && served.completed,
            "resume: the server's export response was \(served)")
        var left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        try expect(left == ["inventory.csv"], "resume: the directory holds \(left)")
        Console.ok(
            "206 from byte \(download.resumedFrom): \(download.bytesWritten) more bytes, \(download.fileSize) in all, checksum = ETag, partial file and record gone"
        )

        // Again, but a new book changes the export before the resume: If-Range no longer matches,
        // so the server sends the new export whole (200) and the partial file is dropped.
        let changed = directory.appendingPathComponent("inventory-changed.csv")
        let keptAgain = try await interruptedDownload(of: export, to: changed)
        let added = try await api.books().create(
            NewBook(title: "Hothouse", author: "Brian Aldiss", year: 1962))
        let fresh = try await export.downloadRetrying(to: changed)
        try await api.books().delete(id: added.value.id)
        let freshChecksum = try Checksum.of(file: changed)
        try expect(
            fresh.head.statusCode == 200 && fresh.resumedFrom == 0 && fresh.bytesWritten == fresh.fileSize
                && fresh.head.headerFields["ETag"] == "\"\(freshChecksum)\""
                && fresh.head.headerFields["ETag"] != full.head.headerFields["ETag"],
            "changed: status \(fresh.head.statusCode), resumed from \(fresh.resumedFrom), ETag \(fresh.head.headerFields["ETag"] ?? "-")"
        )
        left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        try expect(
            left == ["inventory-changed.csv", "inventory.csv"], "changed: the directory holds \(left)")
        Console.ok(
            "after a change (\(keptAgain) bytes kept): 200, the new export whole (\(fresh.fileSize) bytes), checksum = its new ETag"
        )
        record(
            "an interrupted download resumed from byte \(download.resumedFrom) with a 206; after a change, a 200 replaced it"
        )
    }

    /// Starts a resumable download of the export into `file` and cancels it once 1 MiB arrived;
    /// returns the bytes the partial file kept.
    func interruptedDownload(of export: ExportTarget, to file: URL) async throws -> Int64 {
        // Stop after 1 MiB: cancelled here; a dropped connection leaves the same state behind.
        let (reached, milestone) = AsyncStream.makeStream(of: Void.self)
        let attempt = Task {
            defer { milestone.finish() }
            return try await export.download(to: file, resumable: true) { event in
                if event.completedBytes >= 1 << 20 { milestone.yield() }
            }
        }
        for await _ in reached { break }
        attempt.cancel()
        let interrupted = await attempt.result
        guard case .failure(let error as NetLayerError) = interrupted, error.code == .cancelled else {
            throw StoryFailure(message: "interrupt: the attempt ended with \(interrupted), not .cancelled")
        }
        let partial = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).netlayer-partial")
        return Int64(try partial.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
    }

    /// `stream()` hashes the export without a file; `lines()` reads its first rows and stops.
    func streamExport(_ full: Download) async throws {
        begin("Read the export as it arrives: stream() into a checksum, lines() for the first rows")
        let streamed = await server.exportTransfers().count
        let checksum = try await api.export().checksum()
        _ = try await exportTransfers(after: streamed)  // recorded once the server has finished
        try expect(
            checksum.count == full.fileSize && full.head.headerFields["ETag"] == "\"\(checksum.value)\"",
            "stream: \(checksum.count) bytes hashing to \(checksum.value)")
        Console.ok(
            "stream(): \(checksum.count) bytes hashed as they arrived, checksum = ETag, nothing stored")

        let before = await server.exportTransfers().count
        let rows = try await api.export().firstRows(3)
        Console.info(rows.joined(separator: " ⏎ "))
        try expect(
            rows.count == 4 && rows[0] == "copy,book_id,title,author,year,shelf"
                && rows[1].hasPrefix("1,1,\"Dune\""),
            "lines: got \(rows)")
        // The server notices the closed connection at its next write.
        let served = try await exportTransfers(after: before)[0]
        try expect(
            !served.completed && served.sent < full.fileSize,
            "lines: the server sent \(served.sent) of \(full.fileSize) bytes after the loop ended (completed: \(served.completed))"
        )
        Console.ok(
            "lines(): CR LF removed; breaking the loop cancelled the transfer: the server stopped after \(served.sent) of \(full.fileSize) bytes"
        )
        record(
            "streamed the export into a checksum; broke out of lines() after 3 rows and the server stopped sending"
        )
    }

    /// NDJSON decoded line by line.
    func readFeed() async throws {
        begin("Read the NDJSON feed with lines(): each book decoded as its line arrives")
        let books = try await api.feed().books()
        let all = try await api.books().list(perPage: 50)
        try expect(
            books.map(\.id) == all.items.map(\.id),
            "feed: ids \(books.map(\.id)), the list has \(all.items.map(\.id))")
        Console.ok(
            "\(books.count) books, the same as the list: \(books.prefix(3).map(\.title).joined(separator: " · ")) · …"
        )
        record("read \(books.count) books from the NDJSON feed with lines()")
    }

    // MARK: Helpers

    /// The `expected` export responses the server recorded after the first `count`, once they
    /// have ended (the server records one after its last write: a moment after the client has the
    /// last byte, or at the first write after the client went away).
    func exportTransfers(after count: Int, expected: Int = 1) async throws -> [ExportTransfer] {
        for _ in 0..<100 {
            let transfers = await server.exportTransfers()
            if transfers.count >= count + expected { return Array(transfers[count...]) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StoryFailure(message: "the server did not finish \(expected) export responses within 2 s")
    }

    static func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-sample-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `bytes` of xorshift output: the same file every run, and nothing a compressor could shrink.
    static func writePseudoRandomFile(_ file: URL, bytes: Int) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw StoryFailure(message: "cannot create \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var written = 0
        while written < bytes {
            let count = min(1 << 20, bytes - written)
            var words = [UInt64](repeating: 0, count: (count + 7) / 8)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
            try handle.write(contentsOf: words.withUnsafeBytes { Data($0.prefix(count)) })
            written += count
        }
    }

    /// The number of LF-terminated lines in a file.
    static func rowCount(_ file: URL) throws -> Int {
        let data = try Data(contentsOf: file)
        return data.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
    }
}
