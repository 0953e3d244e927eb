import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// Calls through a resource over AsyncHTTPClient, asserting what the server received.
@Suite struct BasicWireTests {
    struct Book: Codable, Equatable {
        let id: Int
        let title: String
    }

    @Test func getDecodesAndTheServerSeesOneRequest() async throws {
        let server = try LoopbackServer.start(fallback: { request in
            request.path == "/books/7" ? .json(object: ["id": 7, "title": "Dune"]) : .notFound(request)
        })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(server: server, transport: transport)
            let book = try await api.target("/books/:id").makeExecutor(pathParts: ["id": 7])
                .execute(model: Book.self)
            #expect(book == Book(id: 7, title: "Dune"))
        }
        let received = try #require(server.requests.first)
        #expect(received.method == "GET")
        #expect(received.headerFields["Host"] == server.hostAndPort)
    }

    @Test func postSendsTheExactLengthAndBody() async throws {
        let server = try LoopbackServer.start(fallback: { LoopbackResponse(body: $0.body) })
        defer { server.stop() }
        let payload = Data((0..<300_000).map { UInt8($0 % 251) })
        try await withTransport { transport in
            let request = TransportRequest(
                method: .post, url: server.url("/echo"), body: RequestBody(payload))
            let response = try await transport.send(request, context: TransportContext())
            #expect(response.head.statusCode == 200)
            #expect(try await response.body.collect(upTo: 1 << 20) == payload)
        }
        let received = try #require(server.requests.first)
        #expect(received.headerFields["Content-Length"] == "300000")
        #expect(received.headerFields["Transfer-Encoding"] == nil)
        #expect(received.body == payload)
    }

    @Test func anIdleTimeoutCoversTheBody() async throws {
        let server = try LoopbackServer.start(fallback: { _ in
            LoopbackResponse(body: Data(repeating: 65, count: 20))
                .dripped(.init(pieceSize: 5, interval: .seconds(2)))
        })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(
                server: server, transport: transport,
                options: ResourceOptions { $0.timeout = .milliseconds(400) })
            let started = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await api.target("/slow").makeExecutor().execute()
            }
            #expect(error?.code == .timedOut)
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test func aCallAfterShutdownIsATypedError() async throws {
        let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 204) })
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        try await transport.shutdown()
        let api = LoopbackAPI(server: server, transport: transport)
        let error = await #expect(throws: NetLayerError.self) {
            _ = try await api.target("/x").makeExecutor().execute()
        }
        #expect(error?.code == .transport)
        #expect(error?.underlying as? AsyncHTTPClientTransportError == .shutDown)
        #expect(server.requests.isEmpty)
    }
}
