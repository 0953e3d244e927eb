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

/// The spool of the URLSession transport: its writer (`SegmentReader.copyNext`), the helper that
/// fills the page cache ahead of it (`SpoolPrefault`) and its removal (`BodySpool.discard`).
@Suite("Spool: writer, page-cache helper, removal")
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

    static var helperRunsHere: Bool {
        #if canImport(Glibc) || canImport(Musl)
            ProcessInfo.processInfo.activeProcessorCount > 1
        #else
            false
        #endif
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
        #expect(body.length >= SpoolPrefault.minimumLength)
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

    /// Which of `file`'s pages in `range` are in the page cache (`mincore` on a mapping that is
    /// never touched), as a fraction; `nil` where that cannot be asked.
    static func residentFraction(_ file: URL, _ range: Range<Int64>) -> Double? {
        #if canImport(Glibc) || canImport(Musl)
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { _ = close(descriptor) }
            let count = Int(range.upperBound - range.lowerBound)
            guard let mapping = mmap(nil, count, PROT_READ, MAP_SHARED, descriptor, off_t(range.lowerBound)),
                mapping != MAP_FAILED
            else { return nil }
            defer { _ = munmap(mapping, count) }
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            var vector = [UInt8](repeating: 0, count: (count + pageSize - 1) / pageSize)
            guard mincore(mapping, count, &vector) == 0 else { return nil }
            return Double(vector.filter { $0 & 1 == 1 }.count) / Double(vector.count)
        #else
            return nil
        #endif
    }

    @Test func theHelperFillsTheCacheOfOddStepsOnlyWithinTheWindow() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("spool.bin")
        let handle = try Self.emptyFileForWriting(file)
        defer { try? handle.close() }
        let step = SpoolPrefault.step
        let length = 6 * step + 3  // steps 0...6, the last one 3 bytes long
        let prefault = SpoolPrefault.start(descriptor: handle.fileDescriptor, length: length)
        guard Self.helperRunsHere else {
            #expect(prefault == nil)
            return
        }
        let helper = try #require(prefault)
        defer { helper.finish() }
        // Sized to its final length before anything is written.
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64 == length)
        // The writer is in step 0: the helper takes steps 1, 3 and 5, then has nothing left (the
        // window of 64 MiB reaches past the end) and exits.
        #expect(try await Self.eventually { helper.hasExited })
        #expect(helper.advised == 3 * step)
        // Those steps, and nothing else, are in the page cache (where the file system keeps one: on
        // tmpfs the advice does nothing). Nearly whole, not whole: the advice is advisory, and under
        // a full parallel test run the kernel left 0.4–0.8% of a step's pages out (seen in CI).
        if let probe = Self.residentFraction(file, 0..<step), probe == 0 {
            for index in Int64(0)..<6 {
                let fraction = Self.residentFraction(file, (index * step)..<((index + 1) * step)) ?? -1
                if index % 2 == 1 {
                    #expect(fraction >= 0.9, "step \(index): \(fraction)")
                } else {
                    #expect(fraction == 0, "step \(index): \(fraction)")
                }
            }
        }
    }

    @Test func whatTheWriterWritesWhileTheHelperRunsIsWhatTheFileHolds() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("spool.bin")
        let handle = try Self.emptyFileForWriting(file)
        defer { try? handle.close() }
        let length = 20 * SpoolPrefault.step + 77
        let prefault = SpoolPrefault.start(descriptor: handle.fileDescriptor, length: length)
        defer { prefault?.finish() }
        #expect((prefault != nil) == Self.helperRunsHere)
        // Written in 1 MiB pieces with the helper told after each, as the spool does (off the pool:
        // 160 MiB of pattern bytes).
        let (actual, expected) = try await offThePool { [handle, prefault] in
            var offset: Int64 = 0
            while offset < length {
                let end = min(length, offset + Self.mib)
                try handle.write(contentsOf: TestPattern.bytes(seed: 5, range: offset..<end))
                offset = end
                prefault?.wrote(upTo: offset)
            }
            prefault?.finish()
            return (try TestPattern.checksumOfFile(file), TestPattern.checksum(seed: 5, range: 0..<length))
        }
        if let prefault { #expect(prefault.advised > 0) }
        #expect(actual.length == length)
        #expect(actual.checksum == expected)
    }

    @Test func aSpoolThatFailsStopsItsHelperAndLeavesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.file("source.bin")
        try await TestPattern.writeFileOffThePool(at: source, length: 48 * Self.mib, seed: 3)
        let body = try RequestBody(segments: [
            .bytes(Data("head".utf8)), .file(source, range: 0..<(48 * Self.mib)),
        ])
        // The file shrinks after the body was made: the spool (helper started) fails at that part.
        #expect(truncate(source.path, off_t(20 * Self.mib)) == 0)
        let directory = scratch.url.appendingPathComponent("spool")
        let error = await #expect(throws: NetLayerError.self) {
            try await BodySpool.write(body, into: directory)
        }
        #expect(error?.code == .encodingFailed)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }

    @Test func theHelperWaitsAWindowAheadAndStopsWhenTheWriterFinishes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("spool.bin")
        let handle = try Self.emptyFileForWriting(file)
        defer { try? handle.close() }
        let step = SpoolPrefault.step
        let window = SpoolPrefault.window
        let prefault = SpoolPrefault.start(descriptor: handle.fileDescriptor, length: 4 * window)
        guard Self.helperRunsHere else {
            #expect(prefault == nil)
            return
        }
        let helper = try #require(prefault)
        defer { helper.finish() }
        // Nothing written yet: the odd steps that end within the window, then it waits.
        let firstWindow = window / step / 2 * step
        #expect(try await Self.eventually { helper.advised == firstWindow })
        try await Task.sleep(for: .milliseconds(50))
        #expect(helper.advised == firstWindow && !helper.hasExited)
        // The writer moves one window on: the helper follows, one window ahead of it.
        helper.wrote(upTo: window)
        #expect(try await Self.eventually { helper.advised == 2 * firstWindow })
        try await Task.sleep(for: .milliseconds(50))
        #expect(helper.advised == 2 * firstWindow && !helper.hasExited)
        // The writer finishes (or gives up) early: the helper exits without going further.
        helper.finish()
        #expect(try await Self.eventually { helper.hasExited })
        #expect(helper.advised == 2 * firstWindow)
    }

    @Test func aSmallSpoolStartsNoHelperAndLeavesTheFileAlone() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("spool.bin")
        let handle = try Self.emptyFileForWriting(file)
        defer { try? handle.close() }
        let prefault = SpoolPrefault.start(
            descriptor: handle.fileDescriptor, length: SpoolPrefault.minimumLength - 1)
        #expect(prefault == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64 == 0)
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
