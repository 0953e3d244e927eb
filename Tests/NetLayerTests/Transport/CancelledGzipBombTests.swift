import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// After a call stops a transfer — its `maximumResponseSize`, a `break` out of `stream()`, its total
    /// deadline — Linux URLSession's libcurl goes on reading and inflating a gzip body to its end,
    /// and meanwhile an unrelated call on another resource waits (a 10 GiB bomb: 26 s). NetLayer
    /// cannot stop it (Docs/Security.md, "What Linux URLSession does that NetLayer cannot fix").
    /// Each case sends a small bomb (about 134 MB of zeros in 845 KB, paced over at least half a
    /// second so a client that really stops is seen to cut it off) and records what the platform
    /// did: read to the end, or cut off. On Swift 6.3.1 it varies from run to run (most runs of
    /// `limit` read to the end); a toolchain that fixes it always cuts off. Apple's URLSession must
    /// cut it off.
    @Suite("Platform faults: a gzip body after the call stopped", .tags(.hardening))
    struct CancelledGzipBombTests {
        static let server = TestServerPool.make()

        /// How the call stops the transfer.
        enum Stop: String, CaseIterable, Sendable {
            case limit, breakOutOfStream, deadline
        }

        @Test(arguments: Stop.allCases)
        func theTransferAfterTheCallStopped(_ stop: Stop) async throws {
            let server = try Self.server.get()
            let bomb = GzipZeros(blocks: 16)
            let path = uniquePath()
            let end = TestLocked<
                (state: TestStreamedBody.State, written: Int64, at: ContinuousClock.Instant)?
            >(nil)
            server.route(path) { _ in
                var response = TestResponse(headers: [
                    ("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip"),
                ])
                var body = TestStreamedBody(length: bomb.length) { bomb.bytes($0) }
                body.pieceSize = 32 << 10
                body.pause = .milliseconds(20)
                body.progress = { written, state in
                    if state != .writing { end.withLock { $0 = (state, written, ContinuousClock.now) } }
                }
                response.streamedBody = body
                return response
            }
            let other = uniquePath()
            server.route(other) { _ in .text("other") }

            let start = ContinuousClock.now
            try await Self.stopEarly(server: server, path: path, stop)
            let stopped = ContinuousClock.now
            // An unrelated call on another resource (its own URLSession).
            let text = try await TestAPI(server: server).target(other).makeExecutor().execute()
            let otherWaited = ContinuousClock.now - stopped
            #expect(text == Data("other".utf8))
            var ended = end.withLock { $0 }
            while ended == nil, ContinuousClock.now - stopped < .seconds(20) {
                try await Task.sleep(for: .milliseconds(10))
                ended = end.withLock { $0 }
            }
            let result = try #require(
                ended, "the server was still writing the bomb 20 s after the call stopped")
            let readToTheEnd = result.state == .finished
            // The server's record agrees with itself: all of it written, or cut off short.
            #expect(readToTheEnd ? result.written == bomb.length : result.written < bomb.length)
            #if os(Linux)
                print(
                    readToTheEnd
                        ? "platform outcome: libcurl read the whole bomb (\(bomb.length) bytes, \(bomb.inflatedLength) inflated) after the call stopped (\(stop), \(stopped - start) after it began); the server ended \(result.at - stopped) after that; an unrelated call waited \(otherWaited)"
                        : "platform outcome: cut off at \(result.written) of \(bomb.length) bytes after the call stopped (\(stop), \(stopped - start) after it began); an unrelated call waited \(otherWaited). Intermittent on Swift 6.3.1: if every run says so, update Docs/Security.md"
                )
            #else
                #expect(!readToTheEnd, "the transfer went on after the call stopped (\(stop))")
            #endif
        }

        /// Makes one call that stops the bomb at `path` after about 1 MiB, and checks it stopped as asked.
        static func stopEarly(server: TestServer, path: String, _ stop: Stop) async throws {
            switch stop {
            case .limit:
                let api = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: 1 << 20))
                let error = await #expect(throws: NetLayerError.self) {
                    try await api.target(path).makeExecutor().execute()
                }
                #expect(error?.code == .responseTooLarge)
            case .breakOutOfStream:
                var read = 0
                for try await chunk in try await TestAPI(server: server).target(path).makeExecutor().stream()
                {
                    read += chunk.count
                    if read >= 1 << 20 { break }
                }
                #expect(read >= 1 << 20)
            case .deadline:
                let api = TestAPI(
                    server: server, options: ResourceOptions(resourceTimeout: .milliseconds(200)))
                let error = await #expect(throws: NetLayerError.self) {
                    for try await _ in try await api.target(path).makeExecutor().stream() {}
                }
                #expect(error?.code == .timedOut)
            }
        }
    }
}
