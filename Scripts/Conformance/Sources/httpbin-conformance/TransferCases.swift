import Foundation
import NetLayer

// Issue 6: bodies streamed from disk (multipart file parts, `.file` bodies and ranges), downloads
// into files (resumed ones included), and response streams, each checked by what httpbin saw or
// sent.

extension Env {
    /// A new empty directory under the run's temporary directory.
    func directory(_ name: String) throws -> URL {
        let url = temp.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The names in a directory, hidden ones included, sorted.
func listing(_ directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// A partial download as NetLayer leaves it beside `name` when a resumable download is interrupted
/// (see Executor+Download.swift): `.<name>.netlayer-partial` with the bytes so far, and
/// `.<name>.netlayer-partial.json` with the URL, the validator and the offset.
func leavePartialDownload(in directory: URL, name: String, bytes: Data, url: String, validator: String) throws
{
    struct Record: Encodable {
        var url: String
        var validator: String
        var offset: Int64
    }
    try bytes.write(to: directory.appendingPathComponent(".\(name).netlayer-partial"))
    try JSONEncoder().encode(Record(url: url, validator: validator, offset: Int64(bytes.count)))
        .write(to: directory.appendingPathComponent(".\(name).netlayer-partial.json"))
}

/// Collects progress events from the transport's threads.
final class ProgressRecorder: @unchecked Sendable {  // `storage` is guarded by `lock`
    private let lock = NSLock()
    private var storage: [TransferProgress] = []

    var events: [TransferProgress] { lock.withLock { storage } }

    func record(_ event: TransferProgress) { lock.withLock { storage.append(event) } }
}

extension Check {
    /// The events of one direction: monotonic, exactly one final event, last, covering `total`;
    /// every event's `expectedBytes` is `total` when the length was announced, else `nil` until
    /// the final one.
    func progress(
        _ events: [TransferProgress], _ direction: TransferProgress.Direction, total: Int64, announced: Bool
    ) {
        let mine = events.filter { $0.direction == direction }
        let shown = mine.map {
            "\($0.completedBytes)/\($0.expectedBytes.map(String.init) ?? "nil")\($0.isFinished ? " final" : "")"
        }
        let monotonic = zip(mine, mine.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
        let finals = mine.filter(\.isFinished).count
        let last = mine.last
        let ok =
            monotonic && finals == 1 && last?.isFinished == true && last?.completedBytes == total
            && last?.expectedBytes == total && last?.fraction == 1
            && mine.dropLast().allSatisfy { $0.completedBytes <= total }
            && mine.dropLast().allSatisfy { $0.expectedBytes == (announced ? total : nil) }
        that(
            "\(direction) progress", ok,
            expected:
                "monotonic events ending in one final event of \(total) bytes, expected bytes \(announced ? "\(total)" : "nil") before it",
            got: "\(shown.count) events [\(shown.suffix(12).joined(separator: ", "))]")
    }

    /// httpbin saw the body with NetLayer's exact length: `Content-Length` equal to the length of
    /// the body sent, and no chunked encoding.
    func exactLength(_ reply: JSON) {
        let sent = lastSent?.body?.length ?? 0
        header(reply, "Content-Length", is: String(sent))
        header(reply, "Transfer-Encoding", is: nil)
    }

    /// The body was handed to the transport as file segments (streamed or spooled, not in memory).
    func sentFromFiles() {
        let body = lastSent?.body
        that(
            "the body sent", body != nil && body?.inMemoryBytes == nil, expected: "to contain file segments",
            got: body == nil ? "no body" : "bytes in memory only")
    }
}

func transferCases(_ env: Env) -> [Case] {
    multipartStreamCases(env) + fileBodyCases(env) + downloadCases(env) + responseStreamCases(env)
}

// MARK: - multipart with file parts streamed from disk

func multipartStreamCases(_ env: Env) -> [Case] {
    [
        Case(
            name:
                "POST /anything multipart, spooled: 3 MiB + 256 KiB+1 binary file parts (CR, LF, --, boundary look-alikes) + text fields"
        ) { c in
            let big = Fixture.trickyBytes(count: 3 << 20, seed: 1)
            let second = Fixture.trickyBytes(count: (256 << 10) + 1, seed: 2)
            let bigURL = try env.file("tricky.bin", big)
            let secondURL = try env.file("tricky2.dat", second)
            let lookalike = "\r\n--NetLayer-0123456789abcdef0123456789abcdef--\r\n"
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post,
                    params: [
                        "crlf": "a\r\nb\r\n", "dashes": "--", "lookalike": lookalike, "uni": "é 漢字 🚀",
                        "empty": "",
                    ],
                    files: [
                        "big": .file(bigURL, contentType: "application/x-netlayer-test"),
                        "second": .file(secondURL),
                    ]))
            c.sentFromFiles()
            c.httpbinBytes(
                "files.big", big, contentType: "application/x-netlayer-test", reply["files"]["big"])
            c.httpbinBytes(
                "files.second", second, contentType: "application/octet-stream", reply["files"]["second"])
            c.equal(
                "file names", ["big", "second"],
                .array((reply["files"].object ?? [:]).keys.sorted().map { .string($0) }))
            c.equal(
                "form",
                [
                    "crlf": "a\r\nb\r\n", "dashes": "--", "lookalike": .string(lookalike), "uni": "é 漢字 🚀",
                    "empty": "",
                ],
                reply["form"])
            c.noArgs(reply)
            c.exactLength(reply)
            let type = c.header(reply, "Content-Type") ?? ""
            c.that(
                "Content-Type", type.hasPrefix("multipart/form-data; boundary="),
                expected: "to start with \"multipart/form-data; boundary=\"", got: "\"\(type)\"")
        },
        Case(
            name:
                "PUT /put multipart, spooled: a small in-memory file part, a 600 KiB file part from disk, quote and backslash in names"
        ) { c in
            let small = Data([0x00, 0xFF, 0x0D, 0x0A, 0x2D, 0x2D, 0x5C, 0x22])
            let text = Fixture.trickyText(count: 600 << 10)
            let url = try env.file("big text.txt", Data(text.utf8))
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .put).call(
                    .put, params: ["we\"ird\\name": "v\\\"", "plain": "1"],
                    files: [
                        "sm\"all\\part": .data(small, filename: "a\\b\"c.bin"),
                        "large": .file(url, filename: "q\"uote\\d.txt"),
                    ]))
            c.sentFromFiles()
            c.httpbinBytes("files.large", Data(text.utf8), contentType: "text/plain", reply["files"]["large"])
            c.httpbinBytes(
                "files[sm\"all\\part]", small, contentType: "application/octet-stream",
                reply["files"]["sm\"all\\part"])
            c.equal(
                "file names", ["large", "sm\"all\\part"],
                .array((reply["files"].object ?? [:]).keys.sorted().map { .string($0) }))
            c.equal("form", ["we\"ird\\name": "v\\\"", "plain": "1"], reply["form"])
            c.noArgs(reply)
            c.exactLength(reply)
        },
    ]
}

// MARK: - `.file` bodies, whole and ranges

func fileBodyCases(_ env: Env) -> [Case] {
    [
        Case(
            name:
                "POST /anything .file body: a 3 MiB binary file, exact bytes and Content-Length, upload progress"
        ) {
            c in
            let bytes = Fixture.trickyBytes(count: (3 << 20) + 7, seed: 3)
            let url = try env.file("upload.bin", bytes)
            let recorder = ProgressRecorder()
            let reply = try await c.echo(
                env.httpbin.anything().call(.post, body: .file(url)).progress { recorder.record($0) })
            c.sentFromFiles()
            c.httpbinBytes("data", bytes, contentType: "application/octet-stream", reply["data"])
            c.header(reply, "Content-Type", is: "application/octet-stream")
            c.exactLength(reply)
            c.header(reply, "Content-Length", is: String(bytes.count))
            c.equal("form", [:], reply["form"])
            c.equal("files", [:], reply["files"])
            c.progress(recorder.events, .upload, total: Int64(bytes.count), announced: true)
        },
        Case(
            name:
                "PUT /put .file(url, range:) body, spooled: a 700 KiB range of a text file, Content-Length of the range"
        ) { c in
            let text = Data(Fixture.trickyText(count: 1 << 20).utf8)
            let url = try env.file("range-source.txt", text)
            // Both ends just after an LF, so the range is whole UTF-8 characters and httpbin shows text.
            let lower = Int64(text[100_000...].firstIndex(of: 0x0A)! + 1)
            let upper = Int64(text[800_000...].firstIndex(of: 0x0A)! + 1)
            let expected = text[Int(lower)..<Int(upper)]
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .put).call(
                    .put, params: ["r": "\(lower)-\(upper)"],
                    body: .file(url, contentType: "text/plain; charset=utf-8", range: lower..<upper)))
            c.sentFromFiles()
            c.httpbinBytes("data", Data(expected), contentType: "application/octet-stream", reply["data"])
            c.header(reply, "Content-Length", is: String(upper - lower))
            c.exactLength(reply)
            c.header(reply, "Content-Type", is: "text/plain; charset=utf-8")
            c.equal("args", ["r": .string("\(lower)-\(upper)")], reply["args"])
        },
        Case(
            name:
                "POST /anything .file(url, range:) body: a 4000-byte binary range mid-file (in memory), caller type"
        ) { c in
            let bytes = Fixture.trickyBytes(count: 1 << 20, seed: 4)
            let url = try env.file("range-source.bin", bytes)
            let range: Range<Int64> = 500_001..<504_001
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, body: .file(url, contentType: "application/x-range", range: range)))
            c.httpbinBytes(
                "data", bytes[Int(range.lowerBound)..<Int(range.upperBound)],
                contentType: "application/octet-stream",
                reply["data"])
            c.header(reply, "Content-Length", is: "4000")
            c.header(reply, "Content-Type", is: "application/x-range")
        },
        Case(
            name:
                "POST /anything .file(url, range:) body: a range to the file's last byte, and a one-byte range"
        ) { c in
            let bytes = Fixture.trickyBytes(count: 300_000, seed: 5)
            let url = try env.file("tail.bin", bytes)
            for range: Range<Int64> in [1000..<300_000, 299_999..<300_000, 0..<1, 0..<300_000] {
                let reply = try await c.echo(
                    env.httpbin.anything().call(.post, body: .file(url, range: range)))
                c.httpbinBytes(
                    "data (\(range))", bytes[Int(range.lowerBound)..<Int(range.upperBound)],
                    contentType: "application/octet-stream", reply["data"])
                c.header(reply, "Content-Length", is: String(range.count))
            }
        },
        Case(
            name:
                "POST /anything .file bodies through a symlink: the target's bytes and length, whole and a range"
        ) {
            c in
            let bytes = Fixture.trickyBytes(count: 400_000, seed: 6)
            let target = try env.file("link-target.bin", bytes)
            let link = env.temp.appendingPathComponent("link.bin")
            try? FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            for range: Range<Int64>? in [nil, 10..<399_990] {
                let reply = try await c.echo(
                    env.httpbin.anything().call(.post, body: .file(link, range: range)))
                let expected = range.map { bytes[Int($0.lowerBound)..<Int($0.upperBound)] } ?? bytes
                c.httpbinBytes(
                    "data (\(range.map { "\($0)" } ?? "whole"))", expected,
                    contentType: "application/octet-stream",
                    reply["data"])
                c.header(reply, "Content-Length", is: String(expected.count))
            }
            let reply = try await c.echo(env.httpbin.anything().call(.post, files: ["f": .file(link)]))
            c.httpbinBytes(
                "files.f (multipart part through the link)", bytes, contentType: "application/octet-stream",
                reply["files"]["f"])
            c.exactLength(reply)
        },
        Case(
            name: "POST /anything empty .file bodies (empty file, empty range) and empty file parts: length 0"
        ) { c in
            let empty = try env.file("empty.txt", Data())
            let other = try env.file("other.bin", Data("abc".utf8))
            for (body, type) in [
                (Body.file(empty), "text/plain"), (.file(other, range: 1..<1), "application/octet-stream"),
            ] {
                let reply = try await c.echo(env.httpbin.anything().call(.post, body: body))
                c.equal("data", "", reply["data"])
                c.header(reply, "Content-Type", is: type)
                let length = c.header(reply, "Content-Length")
                c.that(
                    "header Content-Length", length == nil || length == "0", expected: "absent or 0",
                    got: length ?? "")
                c.header(reply, "Transfer-Encoding", is: nil)
            }
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, params: ["a": "1"],
                    files: ["e": .file(empty), "d": .data(Data(), filename: "d.txt")]))
            c.equal("files", ["d": "", "e": ""], reply["files"])
            c.equal("form", ["a": "1"], reply["form"])
            c.exactLength(reply)
        },
        Case(
            name: "wire: .file body with a range outside the file: refused with encodingFailed, nothing sent"
        ) { c in
            let url = try env.file("short.bin", Data("0123456789".utf8))
            let service = RawService(port: env.raw.port)
            for range: Range<Int64> in [0..<11, 10..<12, -1..<5] {
                _ = env.raw.takeLast()
                do {
                    _ = try await service.at("/raw").call(.post, body: .file(url, range: range)).execute()
                    c.fail("expected NetLayerError.encodingFailed for \(range) got a response")
                } catch let error as NetLayerError {
                    c.that(
                        "error code for \(range)", error.code == .encodingFailed, expected: "encodingFailed",
                        got: "\(error)")
                }
                if let request = env.raw.takeLast() {
                    c.fail("expected nothing on the wire for \(range) got \(request.shown)")
                }
            }
        },
    ]
}

// MARK: - downloads into files

func downloadCases(_ env: Env) -> [Case] {
    [
        Case(
            name:
                "GET /bytes/102400?seed=7 download(to:): the bytes of a plain GET, an old file replaced, nothing else left"
        ) { c in
            let directory = try env.directory("download-bytes")
            let destination = directory.appendingPathComponent("random.bin")
            try Data("old contents".utf8).write(to: destination)
            let executor = env.httpbin.at("/bytes/102400").call(.get, params: ["seed": 7])
            let download = try await executor.download(to: destination)
            let plain = try await executor.execute()
            c.that("plain GET", plain.count == 102_400, expected: "102400 bytes", got: "\(plain.count) bytes")
            c.sameBytes("downloaded file", plain, try Data(contentsOf: destination))
            c.that(
                "Download",
                download.head.statusCode == 200 && download.bytesWritten == 102_400
                    && download.resumedFrom == 0 && download.fileSize == 102_400
                    && download.fileURL == destination && download.redirects.isEmpty,
                expected: "status 200, 102400 bytes written, not resumed, at the destination",
                got:
                    "status \(download.head.statusCode), \(download.bytesWritten) written, resumed from \(download.resumedFrom), at \(download.fileURL.path)"
            )
            c.equal("files left", ["random.bin"], .array(listing(directory).map { .string($0) }))
        },
        Case(
            name:
                "GET /stream-bytes/102400 (chunked) download(to:) with progressUpdates(): the bytes of a plain GET"
        ) { c in
            let directory = try env.directory("download-stream-bytes")
            let destination = directory.appendingPathComponent("chunked.bin")
            let (executor, updates) = env.httpbin.at("/stream-bytes/102400")
                .call(.get, params: ["seed": 11, "chunk_size": 777]).progressUpdates()
            let collected = Task {
                var events: [TransferProgress] = []
                for await event in updates { events.append(event) }
                return events
            }
            let download = try await executor.download(to: destination)
            let events = await collected.value
            let plain = try await env.httpbin.at("/stream-bytes/102400")
                .call(.get, params: ["seed": 11, "chunk_size": 777]).execute()
            c.that("plain GET", plain.count == 102_400, expected: "102400 bytes", got: "\(plain.count) bytes")
            c.sameBytes("downloaded file", plain, try Data(contentsOf: destination))
            c.that(
                "response framing", download.head.headerFields["Content-Length"] == nil,
                expected: "chunked, without Content-Length",
                got: "Content-Length \(download.head.headerFields["Content-Length"] ?? "")")
            c.that(
                "bytes written", download.bytesWritten == 102_400, expected: "102400",
                got: "\(download.bytesWritten)")
            c.progress(events, .download, total: 102_400, announced: false)
            c.equal("files left", ["chunked.bin"], .array(listing(directory).map { .string($0) }))
        },
        Case(
            name:
                "GET /range/102400 resumed from a partial file of 40000 bytes: Range answered 206, the file byte-identical"
        ) { c in
            let size = 102_400
            let offset = 40_000
            let directory = try env.directory("download-resume")
            let destination = directory.appendingPathComponent("range.bin")
            let executor = env.httpbin.at("/range/\(size)").call(.get)
            let url = try executor.transportRequest.url.absoluteString
            c.equal("request URL", .string("http://\(env.address)/range/\(size)"), .string(url))
            try leavePartialDownload(
                in: directory, name: "range.bin", bytes: Fixture.rangeBytes(0..<offset), url: url,
                validator: "\"range\(size)\"")
            let recorder = ProgressRecorder()
            let download = try await executor.progress { recorder.record($0) }.download(
                to: destination, resumable: true)
            let plain = try await executor.execute()
            c.sameBytes("plain GET", Fixture.rangeBytes(0..<size), plain)
            c.sameBytes("downloaded file", plain, try Data(contentsOf: destination))
            c.that(
                "Download",
                download.head.statusCode == 206 && download.resumedFrom == Int64(offset)
                    && download.bytesWritten == Int64(size - offset) && download.fileSize == Int64(size),
                expected: "status 206, resumed from \(offset), \(size - offset) bytes written",
                got:
                    "status \(download.head.statusCode), resumed from \(download.resumedFrom), \(download.bytesWritten) written"
            )
            c.that(
                "Content-Range",
                download.head.headerFields["Content-Range"] == "bytes \(offset)-\(size - 1)/\(size)",
                expected: "bytes \(offset)-\(size - 1)/\(size)",
                got: download.head.headerFields["Content-Range"] ?? "absent")
            // Progress of the whole file: the bytes already on disk count as done from the first
            // event, and the total is the full length.
            c.progress(recorder.events, .download, total: Int64(size), announced: true)
            let first = recorder.events.first { $0.direction == .download }
            c.that(
                "first download event", (first?.completedBytes ?? 0) >= Int64(offset),
                expected: "at least the \(offset) bytes on disk",
                got: first.map { "\($0.completedBytes)" } ?? "none")
            c.equal("files left", ["range.bin"], .array(listing(directory).map { .string($0) }))
        },
        Case(
            name:
                "GET /range/1000 resumed from a partial file as long as the resource: 416, restarted once, the server's bytes"
        ) { c in
            let directory = try env.directory("download-416")
            let destination = directory.appendingPathComponent("r.bin")
            let executor = env.httpbin.at("/range/1000").call(.get)
            // Wrong bytes of the full length: the resumed request asks for bytes=1000-, gets 416,
            // and only a restart from scratch gives the right file.
            try leavePartialDownload(
                in: directory, name: "r.bin", bytes: Data(repeating: UInt8(ascii: "X"), count: 1000),
                url: try executor.transportRequest.url.absoluteString, validator: "\"range1000\"")
            let download = try await executor.download(to: destination, resumable: true)
            c.sameBytes("downloaded file", Fixture.rangeBytes(0..<1000), try Data(contentsOf: destination))
            c.that(
                "Download",
                download.head.statusCode == 200 && download.resumedFrom == 0 && download.bytesWritten == 1000,
                expected: "status 200, not resumed, 1000 bytes written",
                got:
                    "status \(download.head.statusCode), resumed from \(download.resumedFrom), \(download.bytesWritten) written"
            )
            c.equal("files left", ["r.bin"], .array(listing(directory).map { .string($0) }))
        },
        Case(
            name:
                "GET /anything resumed download: Range and If-Range (ETag, date) sent; a 200 replaces the partial file"
        ) { c in
            let directory = try env.directory("download-if-range")
            let destination = directory.appendingPathComponent("echo.json")
            let executor = env.httpbin.anything().call(.get, params: ["q": "1"])
            for validator in ["\"v1-abc\"", "Wed, 21 Oct 2015 07:28:00 GMT"] {
                try leavePartialDownload(
                    in: directory, name: "echo.json", bytes: Data(repeating: UInt8(ascii: "#"), count: 1234),
                    url: try executor.transportRequest.url.absoluteString, validator: validator)
                let download = try await executor.download(to: destination, resumable: true)
                let reply = try JSON.parse(try Data(contentsOf: destination))
                c.header(reply, "Range", is: "bytes=1234-")
                c.header(reply, "If-Range", is: validator)
                c.equal("args", ["q": "1"], reply["args"])
                c.that(
                    "Download (\(validator))", download.head.statusCode == 200 && download.resumedFrom == 0,
                    expected: "status 200, not resumed",
                    got: "status \(download.head.statusCode), resumed from \(download.resumedFrom)")
                c.equal(
                    "files left (\(validator))", ["echo.json"], .array(listing(directory).map { .string($0) })
                )
            }
        },
        Case(
            name:
                "GET /anything resumable with a partial file of another URL: no Range, the partial file dropped"
        ) {
            c in
            let directory = try env.directory("download-other-url")
            let destination = directory.appendingPathComponent("echo.json")
            try leavePartialDownload(
                in: directory, name: "echo.json", bytes: Data("partial".utf8),
                url: "http://\(env.address)/anything?other=1", validator: "\"v1\"")
            let download = try await env.httpbin.anything().call(.get).download(
                to: destination, resumable: true)
            let reply = try JSON.parse(try Data(contentsOf: destination))
            c.header(reply, "Range", is: nil)
            c.header(reply, "If-Range", is: nil)
            c.that(
                "resumed from", download.resumedFrom == 0, expected: "0", got: "\(download.resumedFrom)")
            c.equal("files left", ["echo.json"], .array(listing(directory).map { .string($0) }))
        },
        Case(
            name:
                "GET /status/404 download(to:, resumable: true): unacceptableStatus, the old file kept, nothing left"
        ) { c in
            let directory = try env.directory("download-404")
            let destination = directory.appendingPathComponent("keep.bin")
            try Data("old".utf8).write(to: destination)
            do {
                _ = try await env.httpbin.at("/status/404").call(.get).download(
                    to: destination, resumable: true)
                c.fail("expected NetLayerError.unacceptableStatus got a download")
            } catch let error as NetLayerError {
                c.that(
                    "error", error.code == .unacceptableStatus && error.statusCode == 404,
                    expected: "unacceptableStatus 404", got: "\(error)")
            }
            c.sameBytes("the old file", Data("old".utf8), try Data(contentsOf: destination))
            c.equal("files left", ["keep.bin"], .array(listing(directory).map { .string($0) }))
        },
    ]
}

// MARK: - response streams

func responseStreamCases(_ env: Env) -> [Case] {
    [
        Case(name: "GET /stream/20 lines(): 20 NDJSON lines in order, each httpbin's echo") { c in
            var lines: [String] = []
            for try await line in try await env.httpbin.at("/stream/20").call(.get, params: ["p": "a b"])
                .lines()
            {
                lines.append(line)
            }
            c.that("line count", lines.count == 20, expected: "20", got: "\(lines.count)")
            for (index, line) in lines.enumerated() {
                guard let reply = try? JSON.parse(Data(line.utf8)) else {
                    c.fail("expected line \(index) to be JSON got \"\(line.prefix(200))\"")
                    continue
                }
                c.equal("line \(index) id", .number(String(index)), reply["id"])
                c.equal("line \(index) args", ["p": "a b"], reply["args"])
                c.that(
                    "line \(index) url",
                    reply["url"].string?.hasPrefix("http://\(env.address)/stream/20?") == true,
                    expected: "http://\(env.address)/stream/20?…", got: reply["url"].description)
            }
        },
        Case(name: "GET /stream/20 stream(): the chunks join to 20 LF-terminated JSON lines") { c in
            var body = Data()
            var chunks = 0
            for try await chunk in try await env.httpbin.at("/stream/20").call(.get).stream() {
                body.append(chunk)
                chunks += 1
            }
            var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false)
            c.that(
                "last byte", body.last == 0x0A && lines.last?.isEmpty == true, expected: "LF",
                got: body.last.map { String(format: "0x%02X", $0) } ?? "none")
            if lines.last?.isEmpty == true { lines.removeLast() }
            c.that("line count", lines.count == 20, expected: "20", got: "\(lines.count) in \(chunks) chunks")
            for (index, line) in lines.enumerated() {
                let reply = try? JSON.parse(Data(line))
                c.equal("line \(index) id", .number(String(index)), reply?["id"] ?? .null)
            }
        },
        Case(name: "GET /drip 3000 bytes over 1 s stream(): every byte, as it drips (more than one chunk)") {
            c in
            var body = Data()
            var chunks = 0
            for try await chunk in try await env.httpbin.at("/drip")
                .call(.get, params: ["numbytes": 3000, "duration": 1, "delay": 0]).stream()
            {
                body.append(chunk)
                chunks += 1
            }
            c.sameBytes("body", Data(repeating: UInt8(ascii: "*"), count: 3000), body)
            c.that("chunks", chunks > 1, expected: "more than one", got: "\(chunks)")
        },
        Case(
            name:
                "GET /drip lines(): a last line without a line end is returned; maximumLength is the line's limit"
        ) { c in
            let drip = env.httpbin.at("/drip").call(
                .get, params: ["numbytes": 10, "duration": 0.2, "delay": 0])
            var lines: [String] = []
            for try await line in try await drip.lines(maximumLength: 10) { lines.append(line) }
            c.equal("lines (maximumLength 10)", ["**********"], .array(lines.map { .string($0) }))
            var short: [String] = []
            do {
                for try await line in try await drip.lines(maximumLength: 9) { short.append(line) }
                c.fail(
                    "expected NetLayerError.responseTooLarge for a 10-byte line with maximumLength 9 got lines \(short)"
                )
            } catch let error as NetLayerError {
                c.that(
                    "error (maximumLength 9)", error.code == .responseTooLarge, expected: "responseTooLarge",
                    got: "\(error)")
            }
        },
        Case(
            name:
                "GET /base64/… lines(): a CR before LF is not counted; an LF-terminated line one byte over maximumLength throws"
        ) { c in
            func lines(_ body: String, maximumLength: Int) async throws -> [String] {
                let value = Data(body.utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                var lines: [String] = []
                for try await line in try await env.httpbin.at("/base64/:value")
                    .call(.get, pathParts: ["value": value]).lines(maximumLength: maximumLength)
                {
                    lines.append(line)
                }
                return lines
            }
            let crlf = try await lines("a\r\n*********\r\nb", maximumLength: 9)
            c.equal(
                "lines of a\\r\\n*********\\r\\nb (maximumLength 9)", ["a", "*********", "b"],
                .array(crlf.map { .string($0) }))
            let exact = try await lines("**********\n", maximumLength: 10)
            c.equal(
                "lines of **********\\n (maximumLength 10)", ["**********"], .array(exact.map { .string($0) })
            )
            do {
                let over = try await lines("**********\n", maximumLength: 9)
                c.fail(
                    "expected NetLayerError.responseTooLarge for **********\\n (a 10-byte line) with maximumLength 9 got lines \(over)"
                )
            } catch let error as NetLayerError {
                c.that(
                    "error (maximumLength 9)", error.code == .responseTooLarge, expected: "responseTooLarge",
                    got: "\(error)")
            }
        },
        Case(name: "GET /drip?code=418 stream(): unacceptableStatus before any chunk, the body in the error")
        { c in
            var chunks = 0
            do {
                for try await _ in try await env.httpbin.at("/drip")
                    .call(.get, params: ["numbytes": 5, "duration": 0, "delay": 0, "code": 418]).stream()
                {
                    chunks += 1
                }
                c.fail("expected NetLayerError.unacceptableStatus got \(chunks) chunks")
            } catch let error as NetLayerError {
                c.that(
                    "error", error.code == .unacceptableStatus && error.statusCode == 418 && chunks == 0,
                    expected: "unacceptableStatus 418 before any chunk",
                    got: "\(error) after \(chunks) chunks")
                c.sameBytes("error body", Data("*****".utf8), error.body ?? Data())
            }
        },
    ]
}
