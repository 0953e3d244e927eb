import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// `print` of a call's ``Response``, its head, its redirects and its links masks what the call
    /// sent, wherever the server echoed it (header names included); each stays one line. A value
    /// made by hand prints as before.
    @Suite("Echoed secrets: printed responses, heads and links mask them", .tags(.hardening))
    struct PrintedCallValuesTests {
        static let server = TestServerPool.make()

        @Test func printedCallValuesMaskEchoedSecrets() async throws {
            let server = try Self.server.get()
            let token = "sk-live-5f3a9c"
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("X-Echo", token.uppercased()), (token, "1"),
                        ("Link", #"</items?page=2&t=\#(token)>; rel="next"; title="\#(token)""#),
                    ],
                    body: Data(#"{"id":1,"title":"t"}"#.utf8))
            }
            let auth = Authentication.bearer(token: token) { _ in token }
            let api = TestAPI(server: server, options: ResourceOptions(authentication: auth))
            let response = try await api.target(path).makeExecutor().response(model: Book.self)
            let link = try #require(response.links.first)
            #expect(link.has(relation: "next") && link.parameters["title"] == token)
            let oneLine = ["\(response)", "\(response.head)", "\(link)", String(reflecting: link)]
            for text in oneLine { #expect(!text.contains("\n"), "\(text)") }
            var dumped = ""
            dump(response, to: &dumped)
            let all = (oneLine + [String(reflecting: response), String(reflecting: response.head), dumped])
                .joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [token]) == nil, "\(all)")
            #expect(all.contains("X-Echo: <redacted>"), "\(all)")
            #expect("\(link)".hasPrefix("<http://"), "\(link)")
            // Equality ignores where a value came from.
            let again = try #require(response.head.headerFields.links(relativeTo: response.url).first)
            #expect(again == link)
        }

        @Test func aHeadMadeByHandPrintsAsBefore() throws {
            let url = try #require(URL(string: "https://example.com/a?api_key=k1234&x=1"))
            let head = ResponseHead(
                statusCode: 200,
                headerFields: HeaderFields(received: [("Authorization", "Bearer abcd"), ("X-Plain", "abcd")]),
                url: url)
            #expect(
                "\(head)"
                    == "200 https://example.com/a?api_key=<redacted>&x=1 · headers: Authorization: <redacted> · X-Plain: abcd"
            )
        }
    }
}
