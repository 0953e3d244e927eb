import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// Path parts (§3), query encoding (§6), URL joining (§2) and header merge (§4), on the wire.
    @Suite("Encoding, on the wire")
    struct EncodingWireTests {
        static let server = TestServerPool.make()

        private func only(_ server: TestServer, _ path: String) throws -> RecordedRequest {
            let requests = server.requests(path: path)
            #expect(requests.count == 1, "expected one request at \(path), got \(requests.count)")
            return try #require(requests.last)
        }

        @Test func queryIsEncodedOnceSortedAndEscapesKeys() async throws {
            // swift-net-layer: `a b` arrived as `a%2520b`, keys unescaped, random order, nil as `<null>`.
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath()
            let none: Int? = nil
            try await api.target(path).makeExecutor(
                params: [
                    "z": "a b", "k y": "&=+?#/%", "nothing": none, "arr": [1, 2], "m": ["b": 1, "a": 2],
                    "e": "",
                ]
            ).execute()
            let request = try only(server, path)
            #expect(
                request.rawQuery
                    == "arr%5B%5D=1&arr%5B%5D=2&e=&k%20y=%26%3D%2B%3F%23%2F%25&m%5Ba%5D=2&m%5Bb%5D=1&z=a%20b")
            #expect(!(request.rawQuery ?? "").contains("null"))
        }

        @Test func pathPartsAreEscapedAndCannotInject() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server, version: "v1")
            let base = uniquePath()
            try await api.target(base + "/files/:name/:id").makeExecutor(
                pathParts: ["name": "a/b?admin=1#x", ":id": 7]
            ).execute()
            let expectedPath = "/v1" + base + "/files/a%2Fb%3Fadmin=1%23x/7"
            let request = try only(server, expectedPath)
            #expect(request.rawQuery == nil)
            #expect(request.target == expectedPath)
        }

        @Test func colonSuffixSegmentsAndTemplateQueriesSurvive() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let base = uniquePath()
            try await api.target(base + "/models/:model:generate?alt=sse").makeExecutor(
                pathParts: ["model": "m-1"], params: ["key": "k"]
            ).execute()
            let request = try only(server, base + "/models/m-1:generate")
            #expect(request.rawQuery == "alt=sse&key=k")
        }

        @Test func missingPathPartThrowsAndSendsNothing() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let base = uniquePath()
            do {
                try await api.target(base + "/users/:id/books/:book").makeExecutor(pathParts: ["id": 1])
                    .execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .missingPathParts)
                #expect(error.keys == ["book"])
                #expect(error.description.contains("book"))
            }
            #expect(server.requests.filter { $0.path.hasPrefix(base) }.isEmpty)
        }

        @Test func subpathJoinsWithOneSlash() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server, version: "/api/v2/")
            let base = uniquePath()
            try await api.target(base + "/").makeExecutor(subpath: "/:id/cover", pathParts: ["id": 3])
                .execute()
            _ = try only(server, "/api/v2" + base + "/3/cover")
        }

        @Test func headersMergeThreeLevelsCaseInsensitively() async throws {
            let server = try Self.server.get()
            let api = TestAPI(
                server: server, headers: ["x-level": "resource", "X-Resource": "r", "accept": "text/plain"])
            let path = uniquePath()
            try await api.target(path, headers: ["X-LEVEL": "target", "Accept": "application/json"])
                .makeExecutor(headers: ["X-Level": "call"]).execute()
            let request = try only(server, path)
            #expect(request.headerValues("x-level") == ["call"])
            #expect(request.headerFields.contains { $0.name == "X-Level" })
            #expect(request.header("X-Resource") == "r")
            #expect(request.headerValues("accept") == ["application/json"])
        }

        @Test func paramsMergeThreeLevelsPerKey() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server, params: ["locale": "en", "a": "resource", "gone": "x"])
            let path = uniquePath()
            let none: String? = nil
            try await api.target(path, params: ["a": "target", "b": "target"])
                .makeExecutor(params: ["b": "call", "gone": none]).execute()
            let request = try only(server, path)
            #expect(request.rawQuery == "a=target&b=call&locale=en")
        }

        @Test(arguments: ["X-Bad\r\nInjected: 1", "X-Ok"])
        func headerWithLineBreaksThrowsAndSendsNothing(_ name: String) async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath() + "-\(name.count)"
            do {
                try await api.target(path).makeExecutor(headers: [name: "v\r\nEvil: yes"]).execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .invalidHeader)
            }
            #expect(server.requests(path: path).isEmpty)
        }

        @Test func invalidResourceOrTargetHeaderFailsEveryCallAndSendsNothing() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let badResource = TestAPI(server: server, headers: ["X-Bad": "a\nb"])
            let badTarget = TestAPI(server: server).target(path, headers: ["X-Bad": "a\rb"])
            for executor in [badResource.target(path).makeExecutor(), badTarget.makeExecutor()] {
                do {
                    try await executor.execute()
                    Issue.record("expected an error")
                } catch let error as NetLayerError {
                    #expect(error.code == .invalidHeader)
                    #expect(error.part == "X-Bad")
                }
            }
            #expect(server.requests(path: path).isEmpty)
        }

        @Test func invalidDomainThrowsInsteadOfCrashing() async throws {
            let api = Resource(protocol: .http, domain: "bad domain", version: nil)
            let target = EchoTarget(resource: api, path: "/x")
            do {
                try await target.makeExecutor().execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .invalidURL)
                #expect(error.part == "domain")
            }
        }

        @Test func dateUUIDAndDecimalParamsAreSentAsText() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath()
            let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            try await api.target(path).makeExecutor(
                params: [
                    "d": Date(timeIntervalSince1970: 0), "u": uuid, "p": Decimal(string: "9.99")!, "t": true,
                ]
            ).execute()
            let request = try only(server, path)
            #expect(
                request.rawQuery
                    == "d=1970-01-01T00%3A00%3A00Z&p=9.99&t=true&u=E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        }
    }
}
