import Foundation
import Testing

@testable import NetLayer

extension WireTests {
    /// Caller text in multipart part headers (names, filenames, content types) is escaped the way
    /// browsers escape it, or refused: it never adds a part header.
    @Suite("Multipart part headers carry caller text only escaped", .tags(.hardening))
    struct MultipartWireTests {
        static let server = TestServerPool.make()

        @Test(.tags(.hardening)) func multipartPartContentTypeCannotInjectPartHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let file = FilePart.data(
                Data("hi".utf8), filename: "a.txt",
                contentType: "text/plain\r\nContent-Disposition: form-data; name=\"evil\"")
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(method: .post, files: ["f": file]),
                code: .invalidHeader, server: server, path: path)
        }

        @Test(.tags(.hardening)) func controlCharactersInMultipartNamesArePercentEncoded() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server).target(path).makeExecutor(
                method: .post, params: ["field\u{0}\u{1B}[2J": "v"],
                files: ["file\u{7F}": .data(Data("hi".utf8), filename: "n\u{0}\u{1B}]0;x\u{07}\t.txt")]
            ).execute()
            let body = try #require(server.requests(path: path).first?.body)
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains("name=\"field%00%1B[2J\""))
            #expect(text.contains("name=\"file%7F\"; filename=\"n%00%1B]0;x%07\t.txt\""))
            let controls = body.filter { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A) || $0 == 0x7F }
            #expect(controls.isEmpty)
        }

        @Test(.tags(.hardening)) func multipartEscapingKeepsTheBrowserFormsForQuoteCRAndLF() {
            #expect(MultipartEncoder.escape("a\"b\r\nc\\d") == "a%22b%0D%0Ac\\\\d")
            #expect(MultipartEncoder.escape("plain ü\t") == "plain ü\t")
        }

        @Test(.tags(.hardening)) func backslashesInMultipartNamesAndFilenamesAreDoubled() async throws {
            // `name="f\"` was read by werkzeug, Go and Python's email as an escaped quote.
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server).target(path).makeExecutor(
                method: .post, params: ["a\\": "v"],
                files: ["f\\": .data(Data("x".utf8), filename: "C:\\dir\\x\".txt")]
            ).execute()
            let body = try #require(server.requests(path: path).first?.bodyString)
            #expect(body.contains(#"Content-Disposition: form-data; name="a\\""#), "\(body)")
            #expect(
                body.contains(#"Content-Disposition: form-data; name="f\\"; filename="C:\\dir\\x%22.txt""#),
                "\(body)")
        }
    }
}
