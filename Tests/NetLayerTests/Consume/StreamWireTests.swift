import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// Issue 6: response bodies read as they arrive.
    @Suite("Transfers: streamed bodies and lines")
    struct StreamWireTests {
        static let server = TestServerPool.make()

        @Test func streamDeliversEveryByteInOrder() async throws {
            let server = try Self.server.get()
            let size: Int64 = 16 << 20
            var checksum = TestChecksum()
            let chunks = try await TestAPI(server: server).target("/pattern/stream")
                .makeExecutor(params: ["length": size, "seed": 4]).stream()
            for try await chunk in chunks { checksum.update(chunk) }
            #expect(checksum.count == size)
            #expect(checksum.value == TestPattern.checksum(seed: 4, range: 0..<size))
        }

        @Test func anUnacceptableStatusThrowsBeforeTheFirstChunkWithTheBody() async throws {
            let server = try Self.server.get()
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await TestAPI(server: server).target("/status/503").makeExecutor().stream()
            }
            #expect(error?.code == .unacceptableStatus && error?.statusCode == 503)
            #expect(error?.body == Data("status 503".utf8))
        }

        @Test func breakingOutOfTheLoopCancelsTheTransfer() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath())"
            let size: Int64 = 1 << 30
            let chunks = try await TestAPI(server: server).target(path)
                .makeExecutor(params: ["length": size, "pace": 5]).stream()
            var read = 0
            for try await chunk in chunks {
                read += chunk.count
                if read > 1 << 20 { break }
            }
            let record = await server.waitForPatternRecord(path: path) { $0.ended }
            #expect(record?.finished == false)
            #expect((record?.bytesWritten ?? size) < 64 << 20, "\(String(describing: record))")
        }

        @Test func cancellingTheConsumingTaskCancelsTheTransfer() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath())"
            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": 1 << 30, "pace": 5,
            ])
            let task = Task {
                var read = 0
                for try await chunk in try await executor.stream() { read += chunk.count }
                return read
            }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let error = await #expect(throws: NetLayerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            let record = await server.waitForPatternRecord(path: path) { $0.ended }
            #expect(record?.finished == false)
        }

        @Test func aLaggingConsumerKeepsMemoryBoundedAndLosesNothing() async throws {
            let server = try Self.server.get()
            let transport = URLSessionTransport(bufferLimit: 1 << 20)
            let size: Int64 = 64 << 20
            let path = "/firehose/\(uniquePath())"
            let response = try await transport.send(
                TransportRequest(method: .get, url: server.url("\(path)?length=\(size)&seed=2")),
                context: TransportContext(streamsResponse: true))
            guard case .buffer(let buffer) = response.body.source else {
                Issue.record("a streamed body must use the bounded buffer")
                return
            }
            var checksum = TestChecksum()
            var lagged = false
            for try await chunk in response.body {
                checksum.update(chunk)
                if !lagged {
                    lagged = true
                    // Stop reading while the server keeps sending as fast as it can.
                    try await Task.sleep(for: .seconds(1))
                }
            }
            let statistics = buffer.statistics
            #expect(
                checksum.count == size && checksum.value == TestPattern.checksum(seed: 2, range: 0..<size))
            // Memory never held more than the limit plus one socket read.
            #expect(statistics.peakBytes <= (1 << 20) + (256 << 10), "\(statistics)")
            #if canImport(FoundationNetworking)
                #expect(statistics.spilledBytes > 0, "\(statistics)")
            #endif
            let leftovers =
                (try? FileManager.default.contentsOfDirectory(atPath: transport.spoolDirectory.path)) ?? []
            #expect(leftovers.isEmpty)
            // The emptied directory goes too, although the transport lives on.
            #expect(!FileManager.default.fileExists(atPath: transport.spoolDirectory.path))
            withExtendedLifetime(transport) {}
        }

        @Test func linesSplitAtLFAndCRLFAndKeepSplitCharactersWhole() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let text = "a\r\nbé\nc€d\r\n\n{\"x\":1}\nlast"
            server.route(path) { _ in
                // One byte per chunk: every CR/LF pair and every multi-byte character is split.
                TestResponse.text(text).dripped(TestDrip(pieceSize: 1, interval: .milliseconds(1)))
            }
            var lines: [String] = []
            for try await line in try await TestAPI(server: server).target(path).makeExecutor().lines() {
                lines.append(line)
            }
            #expect(lines == ["a", "bé", "c€d", "", "{\"x\":1}", "last"])
        }

        @Test func aLineLongerThanTheLimitFails() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text(String(repeating: "x", count: 5000) + "\nok\n") }
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                    .lines(maximumLength: 1000)
                {}
            }
            #expect(error?.code == .responseTooLarge)
        }

        /// Found by the httpbin conformance cases: a line of exactly `maximumLength + 1` bytes was
        /// accepted.
        @Test(arguments: [
            ("123456789\r\nab", true), ("1234567890\nab", false), ("ab\n1234567890", false),
            ("ab\n123456789", true), ("123456789\r", false),
        ])
        func maximumLengthIsExactWithAndWithoutCR(body: String, accepted: Bool) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text(body) }
            var failure: NetLayerError?
            do {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                    .lines(maximumLength: 9)
                {}
            } catch let error as NetLayerError {
                failure = error
            }
            #expect((failure == nil) == accepted, "\(body.debugDescription): \(String(describing: failure))")
        }

        @Test func theIdleTimeoutAppliesBetweenChunks() async throws {
            let server = try Self.server.get()
            let error = await #expect(throws: NetLayerError.self) {
                let chunks = try await TestAPI(server: server).target("/drip")
                    .makeExecutor(params: ["bytes": 5, "interval": 800], timeout: .milliseconds(300)).stream()
                for try await _ in chunks {}
            }
            #expect(error?.code == .timedOut)
        }

        @Test func linesDecodingReadsNDJSONAndNamesTheLineThatFails() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse.data(
                    Data(
                        "{\"id\":1,\"title\":\"Dune\"}\r\n\n{\"id\":2,\"title\":\"Emma\"}\n{\"id\":\"x\"}\n{\"id\":4,\"title\":\"Z\"}\n"
                            .utf8),
                    contentType: "application/x-ndjson"
                ).dripped(TestDrip(pieceSize: 7, interval: .milliseconds(1)))
            }
            var books: [Book] = []
            let error = await #expect(throws: NetLayerError.self) {
                for try await book in try await TestAPI(server: server).target(path).makeExecutor()
                    .lines(decoding: Book.self)
                {
                    books.append(book)
                }
            }
            #expect(books == [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")])
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.hasPrefix("line 4: ") == true, "\(String(describing: error?.message))")
            #expect(error?.codingPath == "id")
        }

        @Test func aBodyIsSinglePass() async throws {
            let body = ResponseBody(Data("abc".utf8))
            #expect(try await body.collect() == Data("abc".utf8))
            let error = await #expect(throws: NetLayerError.self) { _ = try await body.collect() }
            #expect(error?.code == .bodyConsumed)
            let chunks = ResponseBody(chunks: [Data("a".utf8), Data("b".utf8)].async, expectedLength: 2)
            #expect(try await chunks.collect() == Data("ab".utf8))
            let tooLarge = await #expect(throws: NetLayerError.self) {
                _ = try await ResponseBody(Data(count: 10)).collect(upTo: 5)
            }
            #expect(tooLarge?.code == .responseTooLarge)
        }

        @Test func aCustomTransportsBodyHearsWhenTheConsumerStopsEarly() async throws {
            let cancels = Counter()
            let endless = AsyncStream<Data> { continuation in
                continuation.yield(Data("first\n".utf8))
                continuation.yield(Data("second\n".utf8))
            }
            let transport = ClosureTransport { _ in
                TransportResponse(
                    head: ResponseHead(statusCode: 200, headerFields: HeaderFields(), url: nil),
                    body: ResponseBody(chunks: endless, onCancel: { cancels.increment() }))
            }
            // Nothing listens on port 9: only the closure answers.
            let api = OfflineAPI(transport: transport)
            for try await line in try await EchoTarget(resource: api, path: "/feed").makeExecutor().lines() {
                #expect(line == "first")
                break
            }
            #expect(cancels.value == 1)
            // A body read to its end is not cancelled, by cancel() or by being released.
            let whole = ResponseBody(chunks: [Data("a".utf8)].async, onCancel: { cancels.increment() })
            #expect(try await whole.collect() == Data("a".utf8))
            whole.cancel()
            // One released unread is.
            _ = ResponseBody(chunks: endless, onCancel: { cancels.increment() })
            #expect(cancels.value == 2)
        }

        @Test func requestBodyChunksReadFilesAndRangesAgainEachTime() async throws {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("f.bin")
            try TestPattern.writeFile(at: file, length: 300_000, seed: 1)
            let body = try RequestBody(segments: [
                .bytes(Data("head".utf8)), .file(file, range: 10..<200_010), .bytes(Data("tail".utf8)),
            ])
            #expect(body.length == 200_008)
            for _ in 0..<2 {
                var data = Data()
                for try await chunk in body.chunks(size: 4096) {
                    #expect(chunk.count <= 4096)
                    data.append(chunk)
                }
                #expect(
                    data == Data("head".utf8) + TestPattern.bytes(seed: 1, range: 10..<200_010)
                        + Data("tail".utf8))
            }
            #expect(throws: NetLayerError.self) {
                try RequestBody(segments: [.file(file, range: 0..<400_000)])
            }
        }
    }
}

/// A sequence of chunks as an async sequence (for ResponseBody(chunks:)).
extension Array where Element == Data {
    var async: AsyncStream<Data> {
        AsyncStream { continuation in
            for chunk in self { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}

/// A transport that answers from a closure (no network).
struct ClosureTransport: Transport {
    let answer: @Sendable (TransportRequest) async throws -> TransportResponse
    init(_ answer: @escaping @Sendable (TransportRequest) async throws -> TransportResponse) {
        self.answer = answer
    }
    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
        try await answer(request)
    }
}

/// A resource whose transport never touches the network.
final class OfflineAPI: Resource, @unchecked Sendable {
    init(transport: any Transport, options: ResourceOptions = ResourceOptions()) {
        super.init(protocol: .http, domain: "127.0.0.1:9", transport: transport, options: options)
    }
}

/// A thread-safe counter. Unchecked Sendable: guarded by `lock`.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

extension WireTests.StreamWireTests {
    @Test(.tags(.hardening)) func aLineLimitOfIntMaxReadsLines() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        server.route(path) { _ in .text("one\r\ntwo\nthree") }
        var lines: [String] = []
        for try await line in try await TestAPI(server: server).target(path).makeExecutor()
            .lines(maximumLength: .max)
        {
            lines.append(line)
        }
        #expect(lines == ["one", "two", "three"])
    }
}
