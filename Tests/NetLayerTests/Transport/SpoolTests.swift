import Foundation
import Testing

@testable import NetLayer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spool of the URLSession transport: its writer (`SegmentReader.copyNext`) and its removal
/// (`BodySpool.discard`).
@Suite("Spool: writer, removal")
struct SpoolTests {
    static let mib: Int64 = 1 << 20

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// Creates an empty file at `url` and opens it for writing.
    static func emptyFileForWriting(_ url: URL) throws -> FileHandle {
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        return try FileHandle(forWritingTo: url)
    }

    @Test func aLargeSpoolOfMixedSegmentsHoldsExactlyTheBody() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let first = scratch.file("first.bin")
        let second = scratch.file("second.bin")
        try await TestPattern.writeFileOffThePool(at: first, length: 41 * Self.mib + 5, seed: 21)
        try await TestPattern.writeFileOffThePool(at: second, length: 3 * Self.mib + 1, seed: 22)
        let head = Data(repeating: 0x68, count: 1000)
        let range: Range<Int64> = 123..<(40 * Self.mib + 130)
        let body = try RequestBody(segments: [
            .bytes(head), .file(first, range: range), .bytes(Data("mid".utf8)),
            .file(second, range: 0..<(3 * Self.mib + 1)), .bytes(Data("tail".utf8)),
        ])
        let spooled = try await BodySpool.write(body, into: scratch.url.appendingPathComponent("spool"))
        defer { BodySpool.removeFile(spooled) }

        let (expectedValue, actual) = try await offThePool {
            var expected = TestChecksum()
            expected.update(head)
            expected.update(TestPattern.bytes(seed: 21, range: range))
            expected.update(Data("mid".utf8))
            expected.update(TestPattern.bytes(seed: 22, range: 0..<(3 * Self.mib + 1)))
            expected.update(Data("tail".utf8))
            return (expected.value, try TestPattern.checksumOfFile(spooled))
        }
        #expect(actual.length == body.length)
        #expect(actual.checksum == expectedValue)
    }

    @Test func aSpoolThatFailsLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.file("source.bin")
        try await TestPattern.writeFileOffThePool(at: source, length: 48 * Self.mib, seed: 3)
        let body = try RequestBody(segments: [
            .bytes(Data("head".utf8)), .file(source, range: 0..<(48 * Self.mib)),
        ])
        // The file shrinks after the body was made: the spool fails at that part.
        #expect(truncate(source.path, off_t(20 * Self.mib)) == 0)
        let directory = scratch.url.appendingPathComponent("spool")
        let error = await #expect(throws: NetLayerError.self) {
            try await BodySpool.write(body, into: directory)
        }
        #expect(error?.code == .encodingFailed)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }

    @Test func theWriterCopiesEverySegmentKindAndRefusesAFileThatBecameShorter() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.file("source.bin")
        try TestPattern.writeFile(at: source, length: 3 * Self.mib, seed: 9)
        let segments: [RequestBody.Segment] = [
            .bytes(Data("head".utf8)), .file(source, range: 7..<(2 * Self.mib + 11)),
            .bytes(Data("tail".utf8)),
        ]
        let target = scratch.file("copy.bin")
        let output = try Self.emptyFileForWriting(target)
        var reader = SegmentReader(segments: segments, chunkSize: 1 << 20)
        var pieces: [Int64] = []
        while let count = try reader.copyNext(to: output) { pieces.append(count) }
        try output.close()
        // No piece is larger than the chunk size, and the pieces add up to the body.
        #expect(pieces.allSatisfy { $0 <= 1 << 20 })
        var expected = Data("head".utf8)
        expected.append(TestPattern.bytes(seed: 9, range: 7..<(2 * Self.mib + 11)))
        expected.append(Data("tail".utf8))
        #expect(pieces.reduce(0, +) == Int64(expected.count))
        #expect(try Data(contentsOf: target) == expected)

        // The file shrinks between two pieces: the next piece fails, it is not padded or cut short.
        let sinkHandle = try Self.emptyFileForWriting(scratch.file("sink.bin"))
        defer { try? sinkHandle.close() }
        var shrinking = SegmentReader(
            segments: [.file(source, range: 0..<(3 * Self.mib))], chunkSize: 1 << 20)
        #expect(try shrinking.copyNext(to: sinkHandle) == Self.mib)
        #expect(truncate(source.path, off_t(Self.mib + 10)) == 0)
        #expect(try shrinking.copyNext(to: sinkHandle) == 10)
        let error = #expect(throws: NetLayerError.self) {
            try shrinking.copyNext(to: sinkHandle)
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.message.contains("became shorter") == true)
    }

    @Test func aDiscardedSpoolIsGoneFromItsDirectoryAtOnce() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.url.appendingPathComponent("spool")
        let file = try BodySpool.createPrivateFile(prefix: "body", in: directory)
        try Data(repeating: 1, count: 1 << 20).write(to: file)
        BodySpool.discard(file)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Its directory, now empty, goes with it.
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        // The descriptor held while the name went is closed soon after (where the process's open
        // files can be listed).
        if FileManager.default.fileExists(atPath: "/proc/self/fd") {
            #expect(try await Self.eventually { !Self.holdsOpen(file) })
        }
    }

    /// Whether a descriptor of this process refers to `file` (Linux: `/proc/self/fd`).
    static func holdsOpen(_ file: URL) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.contains { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            return target?.hasPrefix(file.path) == true
        }
    }
}
