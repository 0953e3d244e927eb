import Foundation
import Testing

@testable import NetLayer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension WireTests {
    /// A body file replaced after the call was made (found by a hostile-input audit): a FIFO in its
    /// place used to block the read in `open(2)` until someone wrote to it, through cancellation
    /// and past the total deadline, holding a thread.
    @Suite("A body file replaced after the call was made", .tags(.hardening))
    struct FileBodyReplacementTests {
        static let server = TestServerPool.make()

        /// Opens `fifo` for writing after `seconds`, which lets a reader stuck in `open(2)` go on:
        /// without the fix the test then fails on time instead of hanging. Off the cooperative pool.
        static func unblock(_ fifo: String, after seconds: Double) {
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: seconds)
                let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 { close(descriptor) }
            }
        }

        @Test func aFilePartReplacedByAFIFOBeforeARetryFailsAtOnce() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("part.bin")
            try Data(repeating: 7, count: 1000).write(to: file)
            let path = uniquePath()
            let answered = HitCounter()
            // The first answer (a 503) waits until the file has been replaced, so the retry stage
            // always finds the FIFO (before, the swap raced the 503 and the reason varied with load).
            let swapped = TestGate()
            server.route(path) { _ in
                guard answered.next() == 1 else { return TestResponse(status: 200) }
                swapped.wait()
                return TestResponse(status: 503, body: Data("busy".utf8))
            }
            let api = TestAPI(
                server: server,
                options: ResourceOptions { $0.retryPolicy = .fixed(delay: .milliseconds(300)) })
            let executor = api.target(path).makeExecutor(
                method: .put, params: ["title": "x"], files: ["cover": .file(file, contentType: "image/png")])
            let call = Task { try await executor.execute() }
            _ = await server.waitForRequests(count: 1, path: path)
            try FileManager.default.removeItem(at: file)
            #expect(mkfifo(file.path, 0o600) == 0)
            let start = ContinuousClock.now
            Self.unblock(file.path, after: 4)
            swapped.open()
            let error = await #expect(throws: NetLayerError.self) { try await call.value }
            #expect(ContinuousClock.now - start < .seconds(3), "the retry waited on the FIFO")
            #expect(error?.code == .unacceptableStatus && error?.statusCode == 503)
            #expect(
                error?.message.contains(
                    "not retried: the body cannot be sent again: part.bin is no longer a regular file")
                    == true, "\(String(describing: error))")
            #expect(server.requests(path: path).count == 1)
        }

        @Test func aBodyFileReplacedByAFIFOIsRefusedWhenItsChunksAreRead() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("body.bin")
            try Data(repeating: 1, count: 100).write(to: file)
            let body = try RequestBody(segments: [.bytes(Data("head".utf8)), .file(file, range: 10..<60)])
            try FileManager.default.removeItem(at: file)
            #expect(mkfifo(file.path, 0o600) == 0)
            let start = ContinuousClock.now
            Self.unblock(file.path, after: 4)
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in body.chunks() {}
            }
            #expect(ContinuousClock.now - start < .seconds(3))
            #expect(error?.code == .encodingFailed)
        }

        @Test func aBodyFileThatShrankBelowItsRangeIsRefusedBeforeReading() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("body.bin")
            try Data(repeating: 1, count: 100).write(to: file)
            let body = try RequestBody(segments: [.file(file, range: 10..<60)])
            try Data(repeating: 1, count: 40).write(to: file)
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in body.chunks() {}
            }
            #expect(error?.message.contains("became shorter") == true)
            // Unchanged, the same body reads its 50 bytes.
            try Data(repeating: 1, count: 100).write(to: file)
            var read = 0
            for try await chunk in body.chunks() { read += chunk.count }
            #expect(read == 50)
        }
    }
}
