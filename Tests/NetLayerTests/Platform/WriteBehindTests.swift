import Foundation
import Testing

@testable import NetLayer

/// The background flushes of a download's file, without a network.
@Suite("Write-behind flushing")
struct WriteBehindTests {
    @Test func aFlushStartsEveryIntervalOnlyOneAtATimeAndFinishWaitsForIt() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-wb-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let flusher = WriteBehind(descriptor: handle.fileDescriptor)
        let chunk = Data(count: 1 << 20)
        // Just under the interval: nothing yet.
        for _ in 0..<31 {
            try handle.write(contentsOf: chunk)
            flusher.wrote(chunk.count)
        }
        #expect(flusher.flushes == 0)
        try handle.write(contentsOf: chunk)
        flusher.wrote(chunk.count)
        #expect(flusher.flushes == 1)
        await flusher.finish()
        #expect(!flusher.isFlushing)
        // Nothing starts after finish(), however much is written.
        flusher.wrote(Int(WriteBehind.interval) * 4)
        #expect(flusher.flushes == 1)
        #expect(!flusher.isFlushing)
    }

    @Test func finishReturnsAtOnceWhenNothingWasFlushed() async {
        let flusher = WriteBehind(descriptor: -1)
        flusher.wrote(10)
        await flusher.finish()
        #expect(flusher.flushes == 0)
    }
}
