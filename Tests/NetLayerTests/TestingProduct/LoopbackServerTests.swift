import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

extension WireTests {
    /// The public loopback server of the NetLayerTesting product, used through a NetLayer resource.
    @Suite("NetLayerTesting: loopback server")
    struct LoopbackServerTests {
        @Test func servesRoutesAndRecordsWhatArrived() async throws {
            let server = try LoopbackServer.start()
            defer { server.stop() }
            server.route("/v1/books") { request in
                request.method == "POST"
                    ? .json(#"{"id":2,"title":"Emma"}"#, status: 201) : .json(#"[{"id":1,"title":"Dune"}]"#)
            }
            let api = Resource(protocol: .http, domain: server.hostAndPort, version: "v1")
            let books = EchoTarget(resource: api, path: "/books")
            let list = try await books.makeExecutor(params: ["page": 1]).execute(model: [Book].self)
            let created = try await books.makeExecutor(
                method: .post, headers: ["X-Request-ID": "r1"], body: .json(NewBook(title: "Emma", tags: []))
            ).execute(model: Book.self)
            #expect(list == [Book(id: 1, title: "Dune")])
            #expect(created == Book(id: 2, title: "Emma"))
            let requests = server.requests(path: "/v1/books")
            #expect(requests.map(\.method) == ["GET", "POST"])
            #expect(requests.first?.queryValue("page") == "1")
            #expect(requests.last?.header("x-request-id") == "r1")
            #expect(requests.last?.header("content-length") == "26")
            #expect(requests.last?.body == Data(#"{"tags":[],"title":"Emma"}"#.utf8))
            #expect(requests.last?.url == server.url("/v1/books"))
        }

        @Test func unroutedPathsGetA404UnlessAFallbackIsGiven() async throws {
            let server = try LoopbackServer.start()
            defer { server.stop() }
            let api = Resource(protocol: .http, domain: server.hostAndPort)
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/nowhere").makeExecutor().execute()
            }
            #expect(error?.statusCode == 404)
            #expect(error?.body == Data("no route for GET /nowhere".utf8))

            let echoing = try LoopbackServer.start(fallback: LoopbackResponse.echo)
            defer { echoing.stop() }
            let echoAPI = Resource(protocol: .http, domain: echoing.hostAndPort)
            let data = try await EchoTarget(resource: echoAPI, path: "/anything").makeExecutor(
                method: .put, body: .data(Data("hi".utf8), contentType: "text/plain")
            ).execute()
            let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(echo?["method"] as? String == "PUT")
            #expect(echo?["body"] as? String == "hi")
        }

        @Test func delaysAndDroppedConnectionsReachNetLayerErrors() async throws {
            let server = try LoopbackServer.start()
            defer { server.stop() }
            server.route("/slow") { _ in LoopbackResponse.text("late").delayed(by: .seconds(5)) }
            server.route("/gone") { _ in .drop() }
            let api = Resource(protocol: .http, domain: server.hostAndPort)
            let slow = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/slow").makeExecutor(timeout: .milliseconds(300))
                    .execute()
            }
            #expect(slow?.code == .timedOut)
            let gone = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/gone").makeExecutor().execute()
            }
            #expect(gone?.code == .transport)
        }

        @Test func stopClosesTheListener() async throws {
            let server = try LoopbackServer.start()
            server.stop()
            server.stop()
            let api = Resource(protocol: .http, domain: server.hostAndPort)
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/x").makeExecutor(timeout: .seconds(5)).execute()
            }
            #expect(error?.code == .transport)
            #expect(server.requests.isEmpty)
        }
    }
}

extension WireTests.LoopbackServerTests {
    @Test(.tags(.hardening)) func aDripWithPieceLengthsNearIntMaxSendsTheBodyInsteadOfTrapping() {
        let body = Data("hello".utf8)
        #expect(
            LoopbackResponse.Drip(pieceLengths: [1, Int.max], interval: .zero).pieces(of: body)
                == [Data("h".utf8), Data("ello".utf8)])
        #expect(LoopbackResponse.Drip(pieceLengths: [Int.max], interval: .zero).pieces(of: body) == [body])
        // A slice whose indices do not start at zero.
        let slice = Data("xxhello".utf8).dropFirst(2)
        #expect(
            LoopbackResponse.Drip(pieceLengths: [2, Int.max], interval: .zero).pieces(of: slice).map {
                Data($0)
            }
                == [Data("he".utf8), Data("llo".utf8)])
        #expect(
            LoopbackResponse.Drip(pieceSize: .max, interval: .zero).pieces(of: slice).map { Data($0) } == [
                body
            ])
    }
}
