import AsyncHTTPClient
import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// What the AsyncHTTPClient transport promises beyond the conformance kit: decoding with a bomb
/// limit, backpressure, exact-length bodies from disk, progress, and its lifecycle.
@Suite struct TransportBehaviourTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func gzipAndDeflateBodiesAreDecoded() async throws {
        let gzip = try #require(Data(base64Encoded: "H4sIAAAAAAACA6tWKsksyUlVslJyKc1LVaoFAOzpnCAQAAAA"))
        let deflate = try #require(Data(base64Encoded: "eJyrVirJLMlJVbJScinNS1WqBQAu6gVp"))
        let server = try LoopbackServer.start(fallback: { request in
            request.path == "/gzip"
                ? LoopbackResponse(headers: [("Content-Encoding", "gzip")], body: gzip)
                : LoopbackResponse(headers: [("Content-Encoding", "deflate")], body: deflate)
        })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(server: server, transport: transport)
            for path in ["/gzip", "/deflate"] {
                let body = try await api.target(path).makeExecutor().execute()
                #expect(String(decoding: body, as: UTF8.self) == #"{"title":"Dune"}"#, "\(path)")
            }
        }
        #expect(server.requests.allSatisfy { $0.headerFields["Accept-Encoding"] == "deflate, gzip" })
    }

    @Test func aDecompressionBombFailsTheCall() async throws {
        let text = try String(
            contentsOf: Self.fixtures.appendingPathComponent("zeros-4MiB.gz.base64"), encoding: .utf8)
        let bomb = try #require(Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let server = try LoopbackServer.start(fallback: { _ in
            LoopbackResponse(headers: [("Content-Encoding", "gzip")], body: bomb)
        })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(server: server, transport: transport)
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await api.target("/bomb").makeExecutor().execute()
            }
            #expect(error?.code == .transport)
            #expect(error?.urlError?.code == .cannotDecodeContentData)
        }
    }

    @Test func aConsumerThatStopsReadingStopsTheServer() async throws {
        let written = LockedBox<Int64>(0)
        let server = try LoopbackServer.start(fallback: { _ in
            var body = LoopbackResponse.StreamedBody(length: 256 << 20) { Data(count: $0.count) }
            body.progress = { bytes, _ in written.set(bytes) }
            var response = LoopbackResponse()
            response.streamedBody = body
            return response
        })
        defer { server.stop() }
        try await withTransport { transport in
            for timeout in [nil, Duration.seconds(30)] {
                let api = LoopbackAPI(
                    server: server, transport: transport, options: ResourceOptions { $0.timeout = timeout })
                let stream = try await api.target("/big").makeExecutor().stream()
                var iterator = stream.makeAsyncIterator()
                _ = try await iterator.next()
                try await Task.sleep(for: .seconds(1))
                // Socket buffers on both sides plus the client's small buffer: far below 256 MiB.
                #expect(
                    written.value < 48 << 20,
                    "the server wrote \(written.value) bytes (timeout \(timeout.map { "\($0)" } ?? "none"))")
                written.set(0)
            }
        }
    }

    @Test func aFileThatShrankIsATypedErrorAndNoWholeBodyArrives() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try Data(repeating: 7, count: 1 << 20).write(to: file)
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 201) })
        defer { server.stop() }
        try await withTransport { transport in
            let body = try RequestBody.file(file)
            try Data(repeating: 7, count: 1000).write(to: file)  // shorter than announced
            let request = TransportRequest(method: .put, url: server.url("/upload"), body: body)
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await transport.send(request, context: TransportContext())
            }
            #expect(error?.code == .encodingFailed)
        }
        #expect(server.requests.isEmpty, "a request arrived whole: \(server.requests.map(\.body.count))")
    }

    @Test func multipartWithAFilePartGoesWithItsExactLength() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cover.png")
        let bytes = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 201) })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(server: server, transport: transport)
            _ = try await api.target("/covers").makeExecutor(
                method: .post, params: ["caption": "front"], files: ["cover": .file(file)]
            ).execute()
        }
        let received = try #require(server.requests.first)
        #expect(received.headerFields["Transfer-Encoding"] == nil)
        #expect(received.headerFields["Content-Length"] == String(received.body.count))
        let parts = try received.multipartParts()
        #expect(parts.contains { $0.body == bytes })
        #expect(parts.contains { $0.body == Data("front".utf8) })
    }

    @Test func progressIsReportedBothWays() async throws {
        let payload = Data(repeating: 1, count: 1 << 20)
        let server = try LoopbackServer.start(fallback: { LoopbackResponse(body: $0.body) })
        defer { server.stop() }
        let reports = LockedBox<[TransferProgress]>([])
        try await withTransport { transport in
            let api = LoopbackAPI(server: server, transport: transport)
            let body = try await api.target("/echo").makeExecutor(method: .post, body: .data(payload))
                .progress { progress in reports.mutate { $0.append(progress) } }
                .execute()
            #expect(body == payload)
        }
        let uploads = reports.value.filter { $0.direction == .upload }
        let downloads = reports.value.filter { $0.direction == .download }
        #expect(uploads.last?.completedBytes == Int64(payload.count))
        #expect(downloads.last?.completedBytes == Int64(payload.count))
        #expect(uploads.map(\.completedBytes) == uploads.map(\.completedBytes).sorted())
    }

    @Test func theHeadTellsTheHTTPVersion() async throws {
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 204) })
        defer { server.stop() }
        try await withTransport { transport in
            let response = try await transport.send(
                TransportRequest(method: .get, url: server.url("/")), context: TransportContext())
            #expect(response.head.httpVersion == "1.1")
            #expect(try await response.body.collect(upTo: 10).isEmpty)
        }
    }

    @Test func aBorrowedClientKeepsRunningAfterTheTransportShutsDown() async throws {
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 204) })
        defer { server.stop() }
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: .init(redirectConfiguration: .disallow))
        let transport = AsyncHTTPClientTransport(client: client)
        _ = try await transport.send(
            TransportRequest(method: .get, url: server.url("/a")), context: TransportContext())
        try await transport.shutdown()
        let response = try await client.execute(
            HTTPClientRequest(url: server.url("/b").absoluteString), deadline: .distantFuture)
        #expect(response.status.code == 204)
        try await client.shutdown()
        #expect(server.requests.map(\.path) == ["/a", "/b"])
    }

    @Test func aTransportReleasedWithoutShutdownShutsItsClientDown() async throws {
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 204) })
        defer { server.stop() }
        weak var released: HTTPClient?
        do {
            let transport = AsyncHTTPClientTransport()
            released = transport.client
            _ = try await transport.send(
                TransportRequest(method: .get, url: server.url("/")), context: TransportContext())
        }
        // The client goes once its shutdown completed (a debug build would stop if it went
        // without one).
        let deadline = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(released == nil)
    }
}

/// A value shared with a server's handlers.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
