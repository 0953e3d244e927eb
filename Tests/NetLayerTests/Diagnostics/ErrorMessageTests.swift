import Foundation
import NetLayer
import Testing

/// Error messages a person can act on: they name the request, the keys and the near miss.
@Suite("Error messages")
struct ErrorMessageTests {
    private static let api = Resource(protocol: .http, domain: "127.0.0.1:9", transport: nil)

    @Test func aPathPartTypoNamesTheMissingAndTheUnknownKeyAndSuggestsTheNearMiss() throws {
        let target = EchoTarget(resource: Self.api, path: "/repos/:owner/:repo")
        let error = #expect(throws: NetLayerError.self) {
            try target.makeExecutor(pathParts: ["owner": "apple", "rep": "swift"]).transportRequest
        }
        #expect(error?.code == .missingPathParts)
        #expect(error?.keys == ["repo"])
        #expect(error?.unknownKeys == ["rep"])
        #expect(
            error?.message
                == #"no value for path part "repo" in "/repos/:owner/:repo"; "rep" matches no token — did you mean "repo"?"#
        )
    }

    @Test func unknownKeysAloneAreNamedWithoutAGuess() throws {
        let target = EchoTarget(resource: Self.api, path: "/books/:id")
        let error = #expect(throws: NetLayerError.self) {
            try target.makeExecutor(pathParts: ["id": 1, "idx": 2]).transportRequest
        }
        #expect(error?.code == .unknownPathParts)
        #expect(error?.unknownKeys == ["idx"])
        #expect(error?.message == #""idx" matches no token in "/books/:id""#)
    }

    @Test(arguments: [("ownr", "owner"), ("Owner", "owner"), ("owners", "owner"), ("xyz", nil), ("own", nil)])
    func aSuggestionIsMadeOnlyForACloseName(_ key: String, _ expected: String?) throws {
        let target = EchoTarget(resource: Self.api, path: "/users/:owner")
        let error = #expect(throws: NetLayerError.self) {
            try target.makeExecutor(pathParts: [key: 1]).transportRequest
        }
        let suggestion = error?.message.range(of: "did you mean \"").map { range in
            String(error?.message[range.upperBound...].prefix { $0 != "\"" } ?? "")
        }
        #expect(suggestion == expected, "\(error?.message ?? "")")
    }

    @Test func aSchemeInTheDomainIsExplainedInASentence() throws {
        let api = Resource(protocol: .https, domain: "https://api.example.com")
        let error = #expect(throws: NetLayerError.self) {
            try EchoTarget(resource: api, path: "/x").makeExecutor().transportRequest
        }
        #expect(
            error?.message
                == "invalid URL: the domain \"https://api.example.com\" cannot be used because it includes a scheme; pass the scheme as `protocol:` and the host alone as the domain"
        )
    }
}

extension WireTests {
    /// Failures of a sent request name its method and (redacted) URL.
    @Suite("Error messages on the wire")
    struct ErrorMessageWireTests {
        static let server = TestServerPool.make()

        @Test func timedOutNamesTheMethodAndURL() async throws {
            let api = TestAPI(server: try Self.server.get())
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/delay/2000").makeExecutor(
                    params: ["api_key": "k3y-secret"], timeout: .milliseconds(100)
                ).execute()
            }
            #expect(error?.code == .timedOut)
            let message = try #require(error?.message)
            #expect(
                message.contains(
                    "(GET http://\(try Self.server.get().hostAndPort)/delay/2000?api_key=<redacted>)"))
            #expect(!message.contains("k3y-secret"))
        }

        @Test func cancelledNamesTheMethodAndURL() async throws {
            let api = TestAPI(server: try Self.server.get())
            let task = Task {
                try await EchoTarget(resource: api, path: "/delay/3000").makeExecutor(method: .delete)
                    .execute()
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let error = await #expect(throws: NetLayerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(
                error?.message.hasSuffix("(DELETE http://\(try Self.server.get().hostAndPort)/delay/3000)")
                    == true)
        }

        @Test func decodingFailedNamesTheMethodAndURL() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"id":"seven"}"#) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute(model: Book.self)
            }
            #expect(error?.code == .decodingFailed)
            #expect(
                error?.message.hasPrefix(
                    "cannot decode Book at id from GET http://\(server.hostAndPort)\(path): ")
                    == true, "\(error?.message ?? "")")
        }

        @Test func aConnectionFailureNamesTheMethodAndURL() async throws {
            // Port 9 (discard) on loopback: nothing listens there in the test environment.
            let api = Resource(protocol: .http, domain: "127.0.0.1:9")
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/x").makeExecutor(method: .post).execute()
            }
            #expect(error?.code == .transport)
            #expect(error?.message.hasPrefix("POST http://127.0.0.1:9/x failed: ") == true)
        }
    }
}
