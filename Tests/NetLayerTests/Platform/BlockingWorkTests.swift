import Foundation
import Testing

@testable import NetLayer

/// Blocking file work runs on a queue of its own (`BlockingIO`), never on a thread of Swift's
/// cooperative pool (DESIGN §18). Each test hands the work a queue it holds suspended: work that ran
/// on the calling task's thread would finish anyway; work on the queue waits until it is resumed.
@Suite("Platform: blocking work runs off the cooperative pool")
struct BlockingWorkTests {
    /// How long a held queue is watched for work that should not run.
    static let watch = Duration.milliseconds(300)

    /// A queue of its own, suspended; `resume()` it before it goes.
    static func heldQueue() -> BlockingIO {
        let io = BlockingIO(label: "BlockingWorkTests.held")
        io.queue.suspend()
        return io
    }

    @Test func fileChunksOfABodyAreReadOnTheBlockingQueue() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try TestPattern.writeFile(at: file, length: 3 << 20, seed: 4)
        let body = try RequestBody(segments: [.bytes(Data("head".utf8)), .file(file, range: 0..<(3 << 20))])
        var chunks = body.chunks(size: 1 << 20)
        let io = Self.heldQueue()
        chunks.io = io
        let read = LockedValue<[Data]>([])
        let reading = Task {
            for try await chunk in chunks { read.withLock { $0.append(chunk) } }
        }
        try await Task.sleep(for: Self.watch)
        // The bytes in memory came at once; the file's first chunk waits for the held queue.
        #expect(read.withLock { $0 } == [Data("head".utf8)])
        io.queue.resume()
        try await reading.value
        var expected = Data("head".utf8)
        expected.append(TestPattern.bytes(seed: 4, range: 0..<(3 << 20)))
        #expect(read.withLock { $0.reduce(Data(), +) } == expected)
        #expect(read.withLock { $0.count } == 4)
    }

    @Test func aBodyInMemoryNeedsNoTripToTheQueue() async throws {
        let body = try RequestBody(segments: [.bytes(Data("one".utf8)), .bytes(Data("two".utf8))])
        var chunks = body.chunks(size: 2)
        let io = Self.heldQueue()
        defer { io.queue.resume() }
        chunks.io = io
        var read = Data()
        for try await chunk in chunks { read.append(chunk) }
        #expect(read == Data("onetwo".utf8))
    }

    @Test func aSpoolIsWrittenOnTheBlockingQueue() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("part.bin")
        try TestPattern.writeFile(at: file, length: 5 << 20, seed: 8)
        let body = try RequestBody(segments: [.bytes(Data("head".utf8)), .file(file, range: 0..<(5 << 20))])
        let directory = scratch.url.appendingPathComponent("spool")
        let io = Self.heldQueue()
        let spooling = Task { try await BodySpool.write(body, into: directory, io: io) }
        try await Task.sleep(for: Self.watch)
        // Nothing written while the queue is held: not even the file is made.
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        io.queue.resume()
        let spooled = try await spooling.value
        defer { BodySpool.removeFile(spooled) }
        let written = try TestPattern.checksumOfFile(spooled)
        #expect(written.length == body.length)
    }

    @Test func aCancelledSpoolStillWaitingForTheQueueLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("part.bin")
        try TestPattern.writeFile(at: file, length: 9 << 20, seed: 2)
        let body = try RequestBody(segments: [.file(file, range: 0..<(9 << 20)), .bytes(Data("tail".utf8))])
        let directory = scratch.url.appendingPathComponent("spool")
        let io = Self.heldQueue()
        let spooling = Task { try await BodySpool.write(body, into: directory, io: io) }
        try await Task.sleep(for: .milliseconds(50))
        spooling.cancel()
        io.queue.resume()
        await #expect(throws: CancellationError.self) { try await spooling.value }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }
}
