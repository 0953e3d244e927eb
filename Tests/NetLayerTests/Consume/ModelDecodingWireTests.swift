import Foundation
import NetLayer
import Testing

extension WireTests {
    /// Optional models from an empty body or a 204 are nil; `Data`, `String` and `Empty` take a body
    /// that is not JSON as it is.
    @Suite("Decoding optional, raw and empty models", .tags(.hardening))
    struct ModelDecodingWireTests {
        static let server = TestServerPool.make()

        @Test(.tags(.hardening)) func optionalModelFromNoContentOrEmptyBodyIsNil() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let none = try await EchoTarget(resource: api, path: "/status/204").makeExecutor()
                .execute(model: Book?.self)
            #expect(none == nil)
            let path = uniquePath()
            server.route(path) { _ in TestResponse(status: 200) }
            let empty = try await api.target(path).makeExecutor().response(model: Book?.self)
            #expect(empty.value == nil)
            let present = uniquePath()
            server.route(present) { _ in .json(#"{"id":1,"title":"a"}"#) }
            let book = try await api.target(present).makeExecutor().execute(model: Book?.self)
            #expect(book == Book(id: 1, title: "a"))
        }

        @Test(.tags(.hardening)) func rawAndEmptyModelsTakeABodyThatIsNotJSONAsIs() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath()
            let text = "plain text, not JSON"
            server.route(path) { _ in .text(text) }
            let executor = api.target(path).makeExecutor()
            #expect(try await executor.execute(model: Data.self) == Data(text.utf8))
            #expect(try await executor.execute(model: Data?.self) == Data(text.utf8))
            #expect(try await executor.execute(model: String.self) == text)
            _ = try await executor.execute(model: Empty.self)
            #expect(try await executor.execute(model: Empty?.self) != nil)
            await #expect(throws: (any Error).self) { _ = try await executor.execute(model: Book.self) }
        }
    }
}
