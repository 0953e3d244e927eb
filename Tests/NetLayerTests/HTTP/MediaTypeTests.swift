import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

/// `MediaType`: the one parser of `Content-Type` values (RFC 9110 §8.3.1), used by the request
/// builder, validation, the event reader, logs and redaction.
@Suite("Media types")
struct MediaTypeTests {
    @Test func theEssenceIsTypeAndSubtypeLowerCasedWithoutParametersOrWhitespace() {
        #expect(MediaType.essence("text/html") == "text/html")
        #expect(MediaType.essence(" Text/HTML ; charset=utf-8") == "text/html")
        #expect(MediaType.essence("\tapplication/JSON\t;q=1") == "application/json")
        #expect(MediaType.essence("multipart/form-data; boundary=x;y") == "multipart/form-data")
        #expect(MediaType.essence("") == "")
        #expect(MediaType.essence(" ; charset=utf-8") == "")
    }

    @Test func theEssenceIsWhatPrecedesTheFirstSemicolon() {
        // A value whose type is missing has an empty essence, whatever its parameters say.
        #expect(MediaType.essence(";text/event-stream") == "")
        #expect(MediaType.essence("; text/event-stream") == "")
        // Only space and tab are optional whitespace in HTTP (RFC 9110 §5.6.3).
        #expect(MediaType.essence("text/event-stream\u{A0}") == "text/event-stream\u{A0}")
    }

    @Test func jsonFormAndMultipartAreRecognisedWhateverTheirCaseAndParameters() {
        for type in [
            "application/json", "Application/JSON; charset=utf-8", "application/problem+json",
            " application/vnd.api+json ",
        ] {
            #expect(MediaType.isJSON(type), "\(type)")
        }
        for type in ["application/jsonp", "text/json-seq", "application/json-patch", ""] {
            #expect(!MediaType.isJSON(type), "\(type)")
        }
        #expect(MediaType.isForm("Application/X-WWW-Form-Urlencoded; charset=utf-8"))
        #expect(!MediaType.isForm("application/x-www-form-urlencoded-ish"))
        #expect(MediaType.isMultipart("multipart/form-data; boundary=abc"))
        #expect(!MediaType.isMultipart("multipart/mixed; boundary=abc"))
    }

    @Test func aRangeMatchesItsTypes() {
        #expect(MediaType.matches("image/png", range: "*/*"))
        #expect(MediaType.matches("image/png", range: "image/*"))
        #expect(!MediaType.matches("text/png", range: "image/*"))
        #expect(MediaType.matches("application/problem+json", range: "application/json"))
        #expect(MediaType.matches("application/json", range: "application/json"))
        #expect(!MediaType.matches("application/xml", range: "application/json"))
        #expect(!MediaType.matches("application/json", range: "application/problem+json"))
    }

    @Test func validationComparesTypesAsMediaTypeDoes() {
        let validation = Validation.successfulStatusCodes.acceptingContentTypes([
            "\tImage/* ", "APPLICATION/JSON",
        ])
        func head(_ type: String) -> ResponseHead {
            ResponseHead(
                statusCode: 200, headerFields: HeaderFields(received: [("Content-Type", type)]), url: nil)
        }
        #expect(validation.accepts(head("image/png")))
        #expect(validation.accepts(head("application/vnd.api+json; charset=utf-8")))
        #expect(!validation.accepts(head("text/plain")))
    }
}

extension WireTests {
    /// `EventReader` split the `Content-Type` on `;` and dropped empty pieces, so a value with no
    /// type before its first `;` (`; text/event-stream`) passed as an event stream; through
    /// `MediaType` its essence is empty, and the response is refused as any other type.
    @Suite("Media types on the wire")
    struct MediaTypeWireTests {
        static let server = TestServerPool.make()

        @Test(arguments: [";text/event-stream", "; text/event-stream"])
        func anEventStreamTypeAfterAnEmptyEssenceIsRefused(_ type: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(status: 200, headers: [("Content-Type", type)], body: Data("data: x\n\n".utf8))
            }
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await TestAPI(server: server).target(path).makeExecutor().events()
            }
            #expect(error?.code == .unacceptableContentType && error?.statusCode == 200)
            #expect(error?.body == Data("data: x\n\n".utf8))
        }

        @Test func anEventStreamTypeInOtherLettersWithParametersIsAccepted() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(
                    status: 200, headers: [("Content-Type", "Text/Event-Stream ;charset=utf-8")],
                    body: Data("data: x\n\n".utf8))
            }
            var received: [String] = []
            for try await event in try await TestAPI(server: server).target(path).makeExecutor().events() {
                received.append(event.data)
            }
            #expect(received == ["x"])
        }
    }
}
