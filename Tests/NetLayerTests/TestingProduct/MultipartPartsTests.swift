import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

/// A recorded request made by hand, for bodies no client sends.
private func recorded(contentType: String?, body: String) -> RecordedRequest {
    recorded(contentType: contentType, body: Data(body.utf8))
}

private func recorded(contentType: String?, body: Data) -> RecordedRequest {
    RecordedRequest(
        method: "POST", url: nil, target: "/upload", version: "HTTP/1.1",
        headerFields: HeaderFields(received: contentType.map { [(name: "Content-Type", value: $0)] } ?? []),
        body: body)
}

extension WireTests {
    /// `RecordedRequest.multipartParts()` on what NetLayer sent over a real socket.
    @Suite("NetLayerTesting: multipart parts on the wire")
    struct MultipartPartsWireTests {
        @Test func readsTheFieldsAndFilesNetLayerSent() async throws {
            let server = try LoopbackServer.start()
            defer { server.stop() }
            server.route("/v1/uploads") { _ in LoopbackResponse(status: 201) }
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("cover.bin")
            let bytes = TestPattern.bytes(seed: 4, range: 0..<300_000)  // holds CR, LF and "--" somewhere
            try bytes.write(to: file)
            let api = Resource(protocol: .http, domain: server.hostAndPort, version: "v1")
            try await EchoTarget(resource: api, path: "/uploads").makeExecutor(
                method: .post, params: ["title": "Dune", "note": "line one\r\nline two"],
                files: [
                    "cover": .file(file, filename: "cover.bin", contentType: "application/octet-stream"),
                    "notes": .data(
                        Data("é ✓".utf8), filename: "notes \"draft\".txt", contentType: "text/plain"),
                ]
            ).execute()

            let request = try #require(server.requests(path: "/v1/uploads").first)
            let parts = try request.multipartParts()
            let byName = Dictionary(
                parts.map { ($0.name ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            #expect(Set(byName.keys) == ["title", "note", "cover", "notes"])
            #expect(parts.count == 4)
            #expect(byName["title"]?.bodyText == "Dune" && byName["title"]?.filename == nil)
            #expect(byName["title"]?.contentType == nil)
            #expect(byName["note"]?.bodyText == "line one\r\nline two")
            #expect(byName["cover"]?.filename == "cover.bin")
            #expect(byName["cover"]?.contentType == "application/octet-stream")
            #expect(byName["cover"]?.body == bytes)
            // NetLayer escapes a quote in a quoted-string as %22 (as browsers do); it is left as sent.
            #expect(byName["notes"]?.filename == "notes %22draft%22.txt")
            #expect(byName["notes"]?.bodyText == "é ✓")
            #expect(
                byName["notes"]?.header("content-disposition")
                    == #"form-data; name="notes"; filename="notes %22draft%22.txt""#)
        }
    }
}

/// `RecordedRequest.multipartParts()` on bodies written by hand: what RFC 2046 and RFC 7578 allow,
/// and typed errors (never a crash) for what they do not.
@Suite("NetLayerTesting: multipart parts")
struct MultipartPartsTests {
    @Test func readsPreamblesEpiloguesPaddingQuotedBoundariesAndBarePart() throws {
        let body =
            "This is the preamble.\r\n--b:o (u)nd\r\n"
            + "Content-Disposition: form-data; name=\"a\\\"b\"; filename=\"x;y.txt\"\r\n"
            + "Content-Type: text/plain;\r\n charset=utf-8\r\n\r\n"
            + "one\r\n--b:o (u)nd \t\r\n"
            + "\r\nno headers here\r\n"
            + "--b:o (u)nd\r\nCONTENT-DISPOSITION: form-data; NAME=plain\r\nX-Extra:v\r\n\r\n"
            + "\r\n\r\n--b:o (u)nd--  \r\nThis is the epilogue, --b:o (u)nd\r\n"
        let request = recorded(
            contentType: #"Multipart/Form-Data; charset=utf-8; Boundary="b:o (u)nd""#, body: body)
        let parts = try request.multipartParts()
        #expect(parts.count == 3)
        #expect(parts[0].name == "a\"b" && parts[0].filename == "x;y.txt")
        #expect(parts[0].contentType == "text/plain; charset=utf-8")
        #expect(parts[0].bodyText == "one")
        #expect(
            parts[1].headerFields.isEmpty && parts[1].name == nil && parts[1].bodyText == "no headers here")
        #expect(parts[2].name == "plain" && parts[2].header("x-extra") == "v")
        #expect(parts[2].body == Data("\r\n".utf8))
    }

    @Test func aBoundaryInsideContentIsNotADelimiterUnlessALineIsOnlyThat() throws {
        let body =
            "--abc\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n"
            + "x\r\n--abcdef\r\n--abc is not alone\r\n--abc\r\n\r\nsecond\r\n--abc--"
        let parts = try recorded(contentType: "multipart/mixed; boundary=abc", body: body).multipartParts()
        #expect(parts.map(\.bodyText) == ["x\r\n--abcdef\r\n--abc is not alone", "second"])
    }

    @Test func anEmptyFormHasNoParts() throws {
        #expect(
            try recorded(contentType: "multipart/form-data; boundary=z", body: "--z--\r\n").multipartParts()
                == [])
    }

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var contentType: String?
        var body: String
        var error: MultipartError
        var testDescription: String { error.description }
    }

    static let malformed: [MalformedCase] = [
        .init(contentType: nil, body: "", error: .notMultipart(contentType: nil)),
        .init(contentType: "text/plain", body: "--a--", error: .notMultipart(contentType: "text/plain")),
        .init(contentType: "multipart/form-data", body: "--a--", error: .invalidBoundary(nil)),
        .init(contentType: "multipart/form-data; boundary=\"\"", body: "", error: .invalidBoundary("")),
        .init(
            contentType: "multipart/form-data; boundary=" + String(repeating: "a", count: 71), body: "",
            error: .invalidBoundary(String(repeating: "a", count: 71))),
        .init(contentType: "multipart/form-data; boundary=\"a \"", body: "", error: .invalidBoundary("a ")),
        .init(contentType: "multipart/form-data; boundary=a{b", body: "", error: .invalidBoundary("a{b")),
        .init(
            contentType: "multipart/form-data; boundary=\"ab", body: "",
            error: .malformedContentType("multipart/form-data; boundary=\"ab")),
        .init(contentType: "multipart/form-data; boundary=ab", body: "", error: .missingDelimiter),
        .init(
            contentType: "multipart/form-data; boundary=ab", body: "--abx\r\n\r\n--ab",
            error: .missingDelimiter),
        .init(
            contentType: "multipart/form-data; boundary=ab", body: "--ab\r\n\r\nvalue\r\n--ab\r\n\r\nmore",
            error: .missingCloseDelimiter(partsRead: 1)),
        .init(
            contentType: "multipart/form-data; boundary=ab", body: "--ab\r\nName: v\r\n--ab--",
            error: .unterminatedHeaders(part: 0)),
        .init(
            contentType: "multipart/form-data; boundary=ab",
            body: "--ab\r\n\r\nv\r\n--ab\r\nno colon\r\n\r\nv\r\n--ab--",
            error: .malformedHeader(part: 1, line: "no colon")),
        .init(
            contentType: "multipart/form-data; boundary=ab", body: "--ab\r\nBad Name: v\r\n\r\nv\r\n--ab--",
            error: .malformedHeader(part: 0, line: "Bad Name: v")),
        .init(
            contentType: "multipart/form-data; boundary=ab",
            body: "--ab\r\nContent-Disposition: form-data; name=\"open\r\n\r\nv\r\n--ab--",
            error: .malformedDisposition(part: 0, value: "form-data; name=\"open")),
        .init(
            contentType: "multipart/form-data; boundary=ab",
            body: "--ab\r\nContent-Disposition: form-data; name\r\n\r\nv\r\n--ab--",
            error: .malformedDisposition(part: 0, value: "form-data; name")),
    ]

    @Test(arguments: malformed)
    func malformedInputThrowsATypedError(_ malformed: MalformedCase) {
        let request = recorded(contentType: malformed.contentType, body: malformed.body)
        #expect(throws: malformed.error) { try request.multipartParts() }
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(
            MultipartError.malformedContentType("multipart/x; a=\"b").description
                == #"cannot read Content-Type "multipart/x; a=\"b""#)
        #expect(
            MultipartError.notMultipart(contentType: "text/plain").description
                == #"not a multipart body: Content-Type is "text/plain""#)
        #expect(
            MultipartError.malformedHeader(part: 1, line: "no colon").description
                == #"multipart part 1: header line "no colon" is not `name: value`"#)
        #expect(
            MultipartError.missingCloseDelimiter(partsRead: 2).description
                == "the multipart body ends without its close delimiter after 2 complete part(s)")
    }

    @Test func everyPrefixAndEveryCorruptedByteOfAValidBodyEndsInPartsOrATypedError() throws {
        // Never a crash, whatever bytes arrive: each prefix of a valid body, and the body with each
        // byte replaced by one of the bytes the reader looks for.
        let body = Data(
            ("pre\r\n--xy\r\nContent-Disposition: form-data; name=\"a\"; filename=\"f\"\r\nContent-Type: t/p\r\n\r\n"
                + "v\r\n--xy\r\n\r\n\r\n--xy--\r\n").utf8)
        let contentType = "multipart/form-data; boundary=xy"
        #expect(try recorded(contentType: contentType, body: body).multipartParts().count == 2)
        var outcomes = 0
        for end in 0...body.count {
            do {
                _ = try recorded(contentType: contentType, body: body.prefix(end)).multipartParts()
            } catch {
                outcomes += 1  // typed: MultipartError
            }
        }
        for index in body.indices {
            for byte in Array("\r\n-\"\\;=: \u{0}".utf8) + [0xFF] {
                var corrupted = body
                corrupted[index] = byte
                _ = try? recorded(contentType: contentType, body: corrupted).multipartParts()
            }
        }
        // Only the prefixes that hold the close delimiter (`--xy--`, then `\r`, then `\n`) parse.
        #expect(outcomes == body.count + 1 - 3)
    }
}
