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

/// The per-OS wrappers of Platform/: what each promises, checked on the OS the tests run on. The
/// read-and-write copy (`FileCopy.copyByReading`, Darwin's only way and Linux's fallback) is
/// checked directly, so Linux runs exercise the code Darwin runs.
@Suite("Platform: file calls")
struct SystemFileTests {
    /// `file` opened for appending writes, at its end.
    static func appending(_ file: URL) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: file.path) {
            #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        return handle
    }

    @Test(arguments: [false, true])
    func aCopyAppendsTheRangeAndStopsAtTheSourcesEnd(byReading: Bool) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.file("source.bin")
        let length: Int64 = (3 << 20) + 17
        try TestPattern.writeFile(at: source, length: length, seed: 31)
        let target = scratch.file("target.bin")
        try Data("head".utf8).write(to: target)
        let output = try Self.appending(target)
        let input = OpenFile(try SystemFile.openForReading(source.path))
        let copy = { (offset: Int64, count: Int) throws -> Int in
            byReading
                ? try FileCopy.copyByReading(
                    from: input.descriptor, at: offset, count: count, to: output.fileDescriptor)
                : try FileCopy.copy(
                    from: input.descriptor, at: offset, count: count, to: output.fileDescriptor)
        }
        // More than one piece of the read-and-write copy, from an odd offset.
        #expect(try copy(5, (2 << 20) + 3) == (2 << 20) + 3)
        // Past the end: only what is there; at the end: nothing.
        let rest = Int(length - (1 << 20))
        #expect(try copy(1 << 20, rest + 100) == rest)
        #expect(try copy(length, 10) == 0)
        try output.close()
        var expected = Data("head".utf8)
        expected.append(TestPattern.bytes(seed: 31, range: 5..<((2 << 20) + 8)))
        expected.append(TestPattern.bytes(seed: 31, range: (1 << 20)..<length))
        #expect(try Data(contentsOf: target) == expected)
    }

    @Test func aReadAtAnOffsetReturnsWhatIsThereAndLeavesTheDescriptorsOffset() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("file.bin")
        try TestPattern.writeFile(at: file, length: 1000, seed: 6)
        let open = OpenFile(try SystemFile.openForReading(file.path))
        #expect(
            try SystemFile.read(open.descriptor, at: 900, count: 500)
                == TestPattern.bytes(seed: 6, range: 900..<1000))
        #expect(try SystemFile.read(open.descriptor, at: 1000, count: 10).isEmpty)
        #expect(
            try SystemFile.read(open.descriptor, at: 0, count: 10)
                == TestPattern.bytes(seed: 6, range: 0..<10))
        #expect(SystemFile.regularFileSize(open.descriptor) == 1000)
    }

    @Test func aFIFOOpensWithoutBlockingAndIsNoRegularFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let open = OpenFile(try SystemFile.openForReading(fifo.path))
        #expect(SystemFile.regularFileSize(open.descriptor) == nil)
        let directory = OpenFile(try SystemFile.openForReading(scratch.url.path))
        #expect(SystemFile.regularFileSize(directory.descriptor) == nil)
    }

    @Test func aMissingFileFailsWithTheSystemsText() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "no-such-\(UUID().uuidString)")
        let error = #expect(throws: SystemError.self) { try SystemFile.openForReading(missing.path) }
        #expect(error?.code == ENOENT)
        #expect(error?.description == String(cString: strerror(ENOENT)))
        #expect(throws: SystemError.self) { try SystemFile.rename(missing.path, to: missing.path + ".moved") }
    }

    @Test func theExclusiveLockIsRefusedToASecondOpenUntilTheFirstCloses() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("locked.bin")
        var first: OpenFile? = OpenFile(try SystemFile.openForWriting(file.path))
        let second = OpenFile(try SystemFile.openForWriting(file.path))
        #expect(SystemFile.tryLockExclusive(first?.descriptor ?? -1))
        #expect(!SystemFile.tryLockExclusive(second.descriptor))
        first = nil  // closes it, and with it the lock
        #expect(first == nil)
        #expect(SystemFile.tryLockExclusive(second.descriptor))
    }

    @Test func renameReplacesTheTargetAndAnEmptyDirectoryIsRemoved() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.url.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = directory.appendingPathComponent("a")
        let target = directory.appendingPathComponent("b")
        try Data("new".utf8).write(to: source)
        try Data("old".utf8).write(to: target)
        try SystemFile.rename(source.path, to: target.path)
        #expect(try Data(contentsOf: target) == Data("new".utf8))
        // Not empty: kept.
        SystemFile.removeDirectoryIfEmpty(directory)
        #expect(FileManager.default.fileExists(atPath: directory.path))
        try FileManager.default.removeItem(at: target)
        SystemFile.removeDirectoryIfEmpty(directory)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func aThreadIsItselfAndNoOtherThread() async {
        let here = ThreadIdentity.current
        #expect(here == ThreadIdentity.current)
        let sameOnAnotherThread = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: ThreadIdentity.current == here) }
        }
        #expect(!sameOnAnotherThread)
    }
}
