import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A scratch directory per test, removed at the end.
struct ScratchDirectory {
    let url: URL

    init(_ name: String = #function) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-\(name.prefix(while: { $0 != "(" }))-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the directory, hidden files included, sorted.
    var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Collects progress events from any thread.
final class ProgressLog: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var storage: [TransferProgress] = []
    var events: [TransferProgress] { lock.withLock { storage } }
    func record(_ event: TransferProgress) { lock.withLock { storage.append(event) } }

    func of(_ direction: TransferProgress.Direction) -> [TransferProgress] {
        events.filter { $0.direction == direction }
    }

    /// Monotonic, and exactly one final event, which is the last and covers `total` bytes.
    func isComplete(_ direction: TransferProgress.Direction, total: Int64) -> Bool {
        let events = of(direction)
        let monotonic = zip(events, events.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
        let finals = events.filter(\.isFinished)
        return monotonic && finals.count == 1 && events.last?.isFinished == true
            && events.last?.completedBytes == total && events.last?.fraction == 1
    }
}

extension WireTests {
    /// Issue 6: uploads and downloads that stream both ways.
    @Suite("Transfers: uploads, downloads, progress")
    struct TransferWireTests {
        static let server = TestServerPool.make()
        static let bigSize: Int64 = 200 << 20

        @Test func aLargeFileUploadStreamsItsExactBytesWithContentLength() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("big.bin")
            try TestPattern.writeFile(at: file, length: Self.bigSize, seed: 7)
            let progress = ProgressLog()
            let path = "/sink/\(uniquePath())"
            let api = TestAPI(server: server)
            let reply = try await api.target(path).makeExecutor(method: .put, body: .file(file))
                .progress(progress.record).execute()
            let record = try #require(server.sinkRecords(path: path).first)
            #expect(record.complete && record.length == Self.bigSize)
            #expect(record.header("Content-Length") == "\(Self.bigSize)")
            #expect(record.header("Transfer-Encoding") == nil)
            #expect(record.checksum == TestPattern.checksum(seed: 7, range: 0..<Self.bigSize))
            #expect(String(decoding: reply, as: UTF8.self).contains(record.checksumHex))
            #expect(progress.isComplete(.upload, total: Self.bigSize))
            #expect(progress.of(.upload).count > 10)
        }

        @Test func aFileRangeSendsExactlyThoseBytes() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("part.bin")
            try TestPattern.writeFile(at: file, length: 1 << 20, seed: 3)
            let path = uniquePath()
            let target = TestAPI(server: server).target(path)
            try await target.makeExecutor(method: .post, body: .file(file, range: 1000..<501_000)).execute()
            let received = try #require(server.requests(path: path).first)
            #expect(received.body == TestPattern.bytes(seed: 3, range: 1000..<501_000))
            #expect(received.header("Content-Length") == "500000")
            await #expect(throws: NetLayerError.self) {
                try await target.makeExecutor(method: .post, body: .file(file, range: 0..<(2 << 20)))
                    .execute()
            }
            #expect(server.requests(path: path).count == 1)
        }

        @Test func multipartWithAFilePartStreamsAndLeavesNoSpool() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("cover.bin")
            // Larger than one spool chunk (4 MiB) several times over, with an odd tail.
            let size: Int64 = (40 << 20) + 5
            try TestPattern.writeFile(at: file, length: size, seed: 11)
            let transport = URLSessionTransport()
            let api = TestAPI(server: server, transport: transport)
            let path = "/sink/\(uniquePath())"
            try await api.target(path).makeExecutor(
                method: .post, params: ["title": "Dune"],
                files: ["cover": .file(file, contentType: "image/png")]
            ).execute()
            let record = try #require(server.sinkRecords(path: path).first)
            let boundary = try #require(
                record.header("Content-Type")?.components(separatedBy: "boundary=").last)
            let head = Data(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nDune\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"cover\"; filename=\"cover.bin\"\r\n"
                    + "Content-Type: image/png\r\n\r\n").utf8)
            let tail = Data("\r\n--\(boundary)--\r\n".utf8)
            var expected = TestChecksum()
            expected.update(head)
            var offset: Int64 = 0
            while offset < size {
                let end = min(size, offset + (1 << 20))
                expected.update(TestPattern.bytes(seed: 11, range: offset..<end))
                offset = end
            }
            expected.update(tail)
            #expect(record.length == Int64(head.count) + size + Int64(tail.count))
            #expect(record.header("Content-Length") == "\(record.length)")
            #expect(record.checksum == expected.value)
            #expect(record.head.prefix(head.count) == head)
            #expect(Self.spoolFiles(transport).isEmpty)
            // The transport is still alive (a process-wide resource may never be released), yet its
            // emptied spool directory is gone: nothing accumulates in the temporary directory.
            #expect(!Self.spoolDirectoryExists(transport))
            withExtendedLifetime(transport) {}
        }

        static func spoolFiles(_ transport: URLSessionTransport) -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: transport.spoolDirectory.path)) ?? []
        }

        static func spoolDirectoryExists(_ transport: URLSessionTransport) -> Bool {
            FileManager.default.fileExists(atPath: transport.spoolDirectory.path)
        }

        @Test func spooledBodiesAreRemovedOnFailureCancellationAndTimeout() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("part.bin")
            try TestPattern.writeFile(at: file, length: 2 << 20)
            let transport = URLSessionTransport()
            let api = TestAPI(server: server, transport: transport)
            func upload(_ path: String, timeout: Duration? = nil) -> Executor {
                api.target(path).makeExecutor(
                    method: .post, files: ["f": .file(file), "g": .data(Data("x".utf8), filename: "g.txt")],
                    timeout: timeout)
            }
            // Failure: the server answers 500.
            let failure = await #expect(throws: NetLayerError.self) {
                try await upload("/sink/\(uniquePath())?status=500").execute()
            }
            #expect(failure?.code == .unacceptableStatus)
            #expect(Self.spoolFiles(transport).isEmpty)
            // Timeout: the server reads the body, then answers after 5 s; the idle timeout is 0.3 s.
            let timedOut = await #expect(throws: NetLayerError.self) {
                try await upload("/stall?ms=5000", timeout: .milliseconds(300)).execute()
            }
            #expect(timedOut?.code == .timedOut)
            #expect(Self.spoolFiles(transport).isEmpty)
            // Cancellation while waiting for the answer.
            let task = Task { try await upload("/stall?ms=5000").execute() }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let cancelled = await #expect(throws: NetLayerError.self) { try await task.value }
            #expect(cancelled?.code == .cancelled)
            #expect(Self.spoolFiles(transport).isEmpty)
            // Cancellation before the spool is written: nothing is created at all.
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await upload("/sink/\(uniquePath())").execute()
            }
            _ = try? await early.value
            #expect(Self.spoolFiles(transport).isEmpty)
        }

        @Test func aLargeDownloadIsExactAndLeavesOnlyTheFile() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let destination = scratch.file("export.bin")
            try Data("old".utf8).write(to: destination)
            let progress = ProgressLog()
            let (executor, updates) = TestAPI(server: server).target("/pattern/big")
                .makeExecutor(params: ["length": Self.bigSize, "seed": 5]).progressUpdates()
            let watcher = Task {
                var count = 0
                for await _ in updates { count += 1 }
                return count
            }
            let download = try await executor.progress(progress.record).download(to: destination)
            #expect(
                download.fileSize == Self.bigSize && download.resumedFrom == 0
                    && download.head.statusCode == 200)
            let (checksum, length) = try TestPattern.checksumOfFile(destination)
            #expect(length == Self.bigSize)
            #expect(checksum == TestPattern.checksum(seed: 5, range: 0..<Self.bigSize))
            #expect(scratch.contents == ["export.bin"])
            #expect(progress.isComplete(.download, total: Self.bigSize))
            #expect(progress.of(.upload).isEmpty)
            #expect(await watcher.value == progress.events.count)
        }

        @Test func aFailedDownloadLeavesNothingAndKeepsTheOldFile() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let destination = scratch.file("report.csv")
            try Data("old".utf8).write(to: destination)
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target("/status/404").makeExecutor().download(
                    to: destination)
            }
            #expect(error?.code == .unacceptableStatus && error?.body == Data("status 404".utf8))
            #expect(scratch.contents == ["report.csv"])
            #expect(try Data(contentsOf: destination) == Data("old".utf8))
        }

        @Test func aCancelledDownloadLeavesNothingBehind() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = "/pattern/\(uniquePath())"
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": 64 << 20, "pace": 20,
            ])
            let task = Task { try await executor.download(to: scratch.file("slow.bin"), resumable: true) }
            try await Task.sleep(for: .milliseconds(400))
            task.cancel()
            let error = await #expect(throws: NetLayerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            // Resumable, but a cancelled call keeps its partial file only to be resumed: here the
            // server gave a validator, so the partial file and its record stay; a plain call keeps nothing.
            #expect(scratch.contents.allSatisfy { $0.hasPrefix(".slow.bin.netlayer-partial") })
            let plain = Task { try await executor.download(to: scratch.file("plain.bin")) }
            try await Task.sleep(for: .milliseconds(400))
            plain.cancel()
            _ = try? await plain.value
            #expect(!scratch.contents.contains { $0.contains("plain") })
            let record = try #require(server.patternRecords(path: path).last)
            try await Self.waitUntil { server.patternRecords(path: path).last?.ended == true }
            #expect(record.bytesWritten < 64 << 20)
        }

        static func waitUntil(_ condition: @Sendable () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while !condition() && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(condition())
        }

        @Test func anInterruptedDownloadResumesWithRangeAndIfRange() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size: Int64 = 8 << 20
            let path = "/pattern/\(uniquePath())"
            let destination = scratch.file("data.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": size, "seed": 9, "interruptAfter": 3 << 20, "interruptOnce": 1,
                "interruptKey": path,
            ])
            let first = await #expect(throws: NetLayerError.self) {
                try await executor.download(to: destination, resumable: true)
            }
            #expect(first?.code == .transport)
            #expect(scratch.contents.contains(".data.bin.netlayer-partial"))
            let download = try await executor.download(to: destination, resumable: true)
            #expect(download.head.statusCode == 206)
            #expect(download.resumedFrom > 0 && download.fileSize == size)
            let records = server.patternRecords(path: path)
            #expect(records.count == 2)
            #expect(records.last?.rangeHeader == "bytes=\(download.resumedFrom)-")
            #expect(records.last?.ifRangeHeader == "\"p-\(size)-9\"")
            let (checksum, length) = try TestPattern.checksumOfFile(destination)
            #expect(length == size && checksum == TestPattern.checksum(seed: 9, range: 0..<size))
            #expect(scratch.contents == ["data.bin"])
        }

        @Test func progressOfAResumedDownloadCountsTheWholeFile() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size: Int64 = 4 << 20
            let path = "/pattern/\(uniquePath())"
            let destination = scratch.file("data.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": size, "interruptAfter": 3 << 19, "interruptOnce": 1, "interruptKey": path,
            ])
            _ = try? await executor.download(to: destination, resumable: true)
            let progress = ProgressLog()
            let download = try await executor.progress(progress.record).download(
                to: destination, resumable: true)
            try #require(download.head.statusCode == 206 && download.resumedFrom > 0)
            #expect(server.patternRecords(path: path).last?.rangeHeader == "bytes=\(download.resumedFrom)-")
            let events = progress.of(.download)
            // Not `0 % of the rest`: the bytes on disk are done from the first event on, out of the
            // whole file, and the bar goes on to 100 %.
            let first = try #require(events.first)
            #expect(
                first.completedBytes >= download.resumedFrom, "\(first) after \(download.resumedFrom) on disk"
            )
            #expect(events.allSatisfy { $0.expectedBytes == size }, "\(events.map(\.expectedBytes))")
            #expect(progress.isComplete(.download, total: size))
            #expect((first.fraction ?? 0) >= Double(download.resumedFrom) / Double(size))
        }

        @Test func aServerThatAnswers200InsteadOf206GetsAFullDownload() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size: Int64 = 4 << 20
            let path = "/pattern/\(uniquePath())"
            let destination = scratch.file("data.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": size, "ranges": 0, "interruptAfter": 1 << 20, "interruptOnce": 1,
                "interruptKey": path,
            ])
            _ = try? await executor.download(to: destination, resumable: true)
            let progress = ProgressLog()
            let download = try await executor.progress(progress.record).download(
                to: destination, resumable: true)
            #expect(
                download.head.statusCode == 200 && download.resumedFrom == 0 && download.bytesWritten == size)
            #expect(server.patternRecords(path: path).last?.rangeHeader != nil)
            // The whole file again: progress starts again from 0 of the full length.
            #expect(progress.of(.download).allSatisfy { $0.expectedBytes == size })
            #expect(progress.isComplete(.download, total: size))
            let (checksum, length) = try TestPattern.checksumOfFile(destination)
            #expect(length == size && checksum == TestPattern.checksum(range: 0..<size))
            #expect(scratch.contents == ["data.bin"])
        }

        @Test func aCompletedDownloadThatIsNotResumableRemovesAnEarlierPartialFile() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size: Int64 = 2 << 20
            let path = "/pattern/\(uniquePath())"
            let destination = scratch.file("data.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": size, "interruptAfter": 1 << 20, "interruptOnce": 1, "interruptKey": path,
            ])
            _ = try? await executor.download(to: destination, resumable: true)
            #expect(scratch.contents.contains(".data.bin.netlayer-partial"))
            let download = try await executor.download(to: destination)
            #expect(download.head.statusCode == 200 && download.fileSize == size)
            #expect(server.patternRecords(path: path).last?.rangeHeader == nil)
            // The partial file of the earlier call describes a file that is now replaced.
            #expect(scratch.contents == ["data.bin"])
        }

        @Test func progressStreamObtainedBeforeTheCallSeesBothDirections() async throws {
            let server = try Self.server.get()
            let body = Data(repeating: 7, count: 3 << 20)
            let (executor, updates) = TestAPI(server: server).target("/echo")
                .makeExecutor(method: .post, body: .data(body)).progressUpdates()
            let collected = Task {
                let log = ProgressLog()
                for await event in updates { log.record(event) }
                return log
            }
            let reply = try await executor.execute()
            let log = await collected.value
            #expect(log.isComplete(.upload, total: Int64(body.count)))
            #expect(log.isComplete(.download, total: Int64(reply.count)))
        }
    }
}

extension WireTests.TransferWireTests {
    @Test(.tags(.hardening)) func progressAfterARetryDescribesTheBodyTheCallReturns() async throws {
        let count = HitCounter()
        let stub = StubTransport { _ in
            let attempt = count.next()
            return attempt == 1 ? StubResponse(status: 503, body: Data(count: 5000)) : .text("ok")
        }
        let api = Resource(protocol: .http, domain: "127.0.0.1:9", transport: stub)
        let events = LockedValue<[TransferProgress]>([])
        let data = try await EchoTarget(resource: api, path: "/x").makeExecutor()
            .retry(.fixed(delay: .milliseconds(1)))
            .progress { event in events.withLock { $0.append(event) } }
            .execute()
        #expect(data == Data("ok".utf8))
        let downloads = events.withLock { $0 }.filter { $0.direction == .download }
        #expect(
            downloads.last
                == TransferProgress(
                    direction: .download, completedBytes: 2, expectedBytes: 2, isFinished: true))
        #expect(downloads.filter(\.isFinished).count == 1)
        #expect(count.count == 2)
    }
}
