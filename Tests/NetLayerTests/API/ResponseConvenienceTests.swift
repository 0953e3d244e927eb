import Foundation
import Testing

@testable import NetLayer

/// Issue 9: typed error bodies, links, params, key-path decoding and untyped JSON.
@Suite("Developer experience: responses, params and errors")
struct ResponseConvenienceTests {
    enum Sort: String, ParamConvertible {
        case newest, oldest
    }

    @Test func rawRepresentableAndSetParamsGoOutSortedOnTheWire() async throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let path = uniquePath()
        let tags: Set<String> = ["swift", "http", "linux"]
        let ids: Set<Int> = [10, 2, 33]
        try await TestAPI(server: server).target(path)
            .makeExecutor(params: ["sort": Sort.oldest, "tags": tags, "ids": ids]).execute()
        let request = try #require(server.requests(path: path).first)
        #expect(
            request.rawQuery
                == "ids%5B%5D=2&ids%5B%5D=10&ids%5B%5D=33&sort=oldest&tags%5B%5D=http&tags%5B%5D=linux&tags%5B%5D=swift"
        )
    }

    @Test func executeInfersItsModelFromTheContextAndDefaultsToData() async throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let path = uniquePath()
        server.route(path) { _ in .json("{\"id\":1,\"title\":\"Dune\"}") }
        let executor = TestAPI(server: server).target(path).makeExecutor()
        let book: Book = try await executor.execute()
        #expect(book == Book(id: 1, title: "Dune"))
        let raw = try await executor.execute()
        #expect(raw == Data("{\"id\":1,\"title\":\"Dune\"}".utf8))
    }

    @Test func aKeyPathDecodesInsideTheEnvelope() async throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let path = uniquePath()
        server.route(path) { _ in
            .json(
                "{\"data\":{\"total\":2,\"items\":[{\"id\":1,\"title\":\"Dune\"},{\"id\":2,\"title\":\"Emma\"}]}}"
            )
        }
        let executor = TestAPI(server: server).target(path).makeExecutor()
        #expect(
            try await executor.execute(model: [Book].self, at: "data.items")
                == [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")])
        #expect(
            try await executor.execute(model: Book.self, at: "data.items[1]") == Book(id: 2, title: "Emma"))
        #expect(try await executor.execute(model: String.self, at: "data.items[0].title") == "Dune")
        #expect(try await executor.execute(model: Int.self, at: "data.total") == 2)

        let missing = await #expect(throws: NetLayerError.self) {
            try await executor.execute(model: [Book].self, at: "data.books")
        }
        #expect(missing?.code == .decodingFailed)
        #expect(missing?.codingPath == "data.books")
        #expect(
            missing?.message.hasPrefix("cannot decode Array<Book> at \"data.books\"") == true,
            "\(missing?.message ?? "")")
        let outOfRange = await #expect(throws: NetLayerError.self) {
            try await executor.execute(model: Book.self, at: "data.items[5]")
        }
        #expect(outOfRange?.code == .decodingFailed)
        #expect(outOfRange?.codingPath == "data.items[5]")
    }

    @Test func aMalformedKeyPathIsRefusedBeforeSending() async throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let path = uniquePath()
        for keyPath in [
            "", ".data", "data.", "data..items", "items[", "items[x]", "items[-1]", "items[0]name",
        ] {
            let error = await #expect(throws: NetLayerError.self, "\(keyPath)") {
                try await TestAPI(server: server).target(path).makeExecutor().execute(
                    model: Book.self, at: keyPath)
            }
            #expect(error?.code == .invalidValue)
        }
        #expect(server.requests(path: path).isEmpty)
        #expect(try KeyPathStep.parse("a[0][1].b") == [.key("a"), .index(0), .index(1), .key("b")])
        #expect(try KeyPathStep.parse("[2]") == [.index(2)])
    }

    @Test func untypedJSONKeepsLargeIntegersAndReadsWithAccessors() throws {
        let text =
            "{\"id\":9007199254740993,\"ok\":true,\"ratio\":0.5,\"name\":\"x\",\"tags\":[\"a\",null],\"one\":1}"
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(json["id"] == .integer(9_007_199_254_740_993))
        #expect(json["ok"]?.boolValue == true)
        #expect(json["one"]?.boolValue == nil && json["one"]?.intValue == 1)
        #expect(json["ratio"]?.doubleValue == 0.5 && json["ratio"]?.intValue == nil)
        #expect(json["name"]?.stringValue == "x")
        #expect(json["tags"]?[0]?.stringValue == "a")
        #expect(json["tags"]?[1]?.isNull == true)
        #expect(json["tags"]?[2] == nil && json["missing"] == nil && json[0] == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let again = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(json))
        #expect(again == json)
    }

    @Test func linkHeadersParseLikeRFC8288() throws {
        let base = try #require(URL(string: "https://api.example.com/repos?page=2"))
        var fields = HeaderFields()
        fields.append(
            "Link", "<https://api.example.com/repos?page=3>; rel=\"next\", <./repos?page=9>; REL=last")
        fields.append(
            "link",
            "<https://x.example/a,b>; rel=\"prev start\"; title=\"a, \\\"quoted\\\" title\"; rel=ignored, garbage, <relative>"
        )
        let links = fields.links(relativeTo: base)
        #expect(
            links.map(\.url.absoluteString) == [
                "https://api.example.com/repos?page=3", "https://api.example.com/repos?page=9",
                "https://x.example/a,b",
                "https://api.example.com/relative",
            ])
        #expect(links.map(\.relations) == [["next"], ["last"], ["prev", "start"], []])
        #expect(links[2].parameters["title"] == "a, \"quoted\" title")
        #expect(links[1].has(relation: "LAST"))
        // Without a base, a relative target cannot be used and is left out.
        #expect(fields.links().count == 2)
    }

    @Test func aResponsesLinksAndAnErrorsBodyAreTyped() async throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let path = uniquePath()
        server.route(path) { request in
            if request.queryItems.contains(where: { $0.name == "page" && $0.value == "2" }) {
                return .json(
                    "{\"message\":\"Validation Failed\",\"errors\":[{\"field\":\"page\"}]}", status: 422)
            }
            var response = TestResponse.json("[]")
            response.addHeader("Link", "<\(path)?page=2>; rel=\"next\", <\(path)?page=5>; rel=\"last\"")
            return response
        }
        let api = TestAPI(server: server)
        let first = try await api.target(path).makeExecutor().response(model: [Book].self)
        let next = try #require(first.link("next"))
        #expect(next.absoluteString == "http://\(server.hostAndPort)\(path)?page=2")
        #expect(first.link("last")?.query == "page=5")
        struct ServiceError: Decodable, Equatable {
            struct Field: Decodable, Equatable { let field: String }
            let message: String
            let errors: [Field]
        }
        let error = await #expect(throws: NetLayerError.self) {
            try await api.target(path).makeExecutor(params: ["page": 2]).execute()
        }
        #expect(
            try error?.decodeBody(as: ServiceError.self)
                == ServiceError(message: "Validation Failed", errors: [.init(field: "page")]))
        let wrongShape = #expect(throws: NetLayerError.self) { try error?.decodeBody(as: [Int].self) }
        #expect(wrongShape?.code == .decodingFailed)
    }
}
