import Foundation
import Testing

@testable import NetLayer

@Suite("URL joining")
struct URLBuilderTests {
    private func url(_ domain: String, _ version: String?, _ path: String, query: String = "") throws
        -> String
    {
        let base = try URLBuilder.base(scheme: .https, domain: domain, version: version)
        return try URLBuilder.url(base: base, path: path, query: query).absoluteString
    }

    @Test func exactlyOneSlashAtEachJoin() throws {
        #expect(try url("api.example.com", "v1", "/books") == "https://api.example.com/v1/books")
        #expect(try url("api.example.com/", "/v1/", "//books") == "https://api.example.com/v1/books")
        #expect(try url("api.example.com", nil, "books") == "https://api.example.com/books")
        #expect(try url("api.example.com", "", "/books") == "https://api.example.com/books")
    }

    @Test func domainMayCarryPortAndBasePath() throws {
        #expect(try url("127.0.0.1:8080", "api/v2", "/x") == "https://127.0.0.1:8080/api/v2/x")
        #expect(try url("rpc.example.com/v3", nil, "/call") == "https://rpc.example.com/v3/call")
    }

    @Test func trailingSlashIsKeptAsWritten() throws {
        #expect(try url("api.example.com", "v1", "/books/") == "https://api.example.com/v1/books/")
        #expect(try url("api.example.com", "v1", "/") == "https://api.example.com/v1/")
        #expect(try url("api.example.com", "v1", "") == "https://api.example.com/v1")
    }

    @Test func templateQueryIsKeptAndParamsAppendedWithAmpersand() throws {
        #expect(
            try url("h.example.com", nil, "/s?fixed=1", query: "a=2") == "https://h.example.com/s?fixed=1&a=2"
        )
        #expect(try url("h.example.com", nil, "/s?fixed=1") == "https://h.example.com/s?fixed=1")
        #expect(try url("h.example.com", nil, "/s", query: "a=2") == "https://h.example.com/s?a=2")
    }

    @Test(arguments: ["", "https://api.example.com", "api example.com", "/api", "api.example.com?x"])
    func badDomainThrowsInvalidURLNamingTheDomain(_ domain: String) {
        do {
            _ = try URLBuilder.base(scheme: .https, domain: domain, version: nil)
            Issue.record("expected an error for \(domain)")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(error.part == "domain")
        }
    }

    @Test func badLiteralPathThrowsNamingThePath() throws {
        let base = try URLBuilder.base(scheme: .https, domain: "h.example.com", version: nil)
        for path in ["/a b", "/a\"b", "/a%zz", "/a#b"] {
            do {
                _ = try URLBuilder.url(base: base, path: path, query: "")
                Issue.record("expected an error for \(path)")
            } catch {
                #expect(error.part == "path")
            }
        }
    }

    @Test func badVersionThrowsNamingTheVersion() {
        do {
            _ = try URLBuilder.base(scheme: .https, domain: "h.example.com", version: "v 1")
            Issue.record("expected an error")
        } catch {
            #expect(error.part == "version")
        }
    }
}

@Suite("Header merge")
struct HeaderMergeTests {
    @Test func laterLevelWinsCaseInsensitivelyWithItsSpelling() throws {
        let fields = try HeaderFields(
            merging: ["content-type": "a", "X-Keep": "1"], ["Content-Type": "b"], ["CONTENT-TYPE": "c"])
        #expect(fields["content-type"] == "c")
        #expect(
            fields.fields.filter { $0.name.lowercased() == "content-type" }.map(\.name) == ["CONTENT-TYPE"])
        #expect(fields["x-keep"] == "1")
        #expect(fields.fields.count == 2)
    }

    @Test(arguments: ["a\rb", "a\nb", "a\u{0}b"])
    func crLfNulInValueThrows(_ value: String) {
        #expect(throws: NetLayerError.self) { try HeaderFields(merging: ["X-Test": value]) }
    }

    @Test(arguments: ["X\r\nInjected", "X Name", "", "X:Y", "X\u{0}"])
    func invalidNameThrows(_ name: String) {
        do {
            _ = try HeaderFields(merging: [name: "v"])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidHeader)
        }
    }
}

@Suite("Multipart encoding")
struct MultipartEncoderTests {
    @Test func exactBytesForFieldsThenFiles() throws {
        let encoder = MultipartEncoder(boundary: "B")
        let body = try #require(
            try encoder.body(
                fields: [("a", "1"), ("tags[]", "x")],
                files: [
                    "z": .data(Data("hi".utf8), filename: "h.txt"),
                    "f": .data(Data([0, 1]), filename: "b.bin"),
                ]
            ).inMemoryBytes)
        let expected =
            "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"tags[]\"\r\n\r\nx\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"b.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\u{0}\u{1}\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"z\"; filename=\"h.txt\"\r\nContent-Type: text/plain\r\n\r\nhi\r\n"
            + "--B--\r\n"
        #expect(body == Data(expected.utf8))
    }

    @Test func quotesAndLineBreaksInNamesAreEscaped() {
        #expect(MultipartEncoder.escape("a\"b\r\nc") == "a%22b%0D%0Ac")
    }

    @Test func boundaryIsRandomPerRequest() {
        #expect(MultipartEncoder().boundary != MultipartEncoder().boundary)
        #expect(MultipartEncoder().contentType.hasPrefix("multipart/form-data; boundary=NetLayer-"))
    }

    @Test func unreadableFileThrowsEncodingFailed() {
        let missing = URL(fileURLWithPath: "/nonexistent/netlayer-\(UUID().uuidString).png")
        do {
            _ = try MultipartEncoder().body(fields: [], files: ["f": .file(missing)])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .encodingFailed)
        }
    }

    @Test func contentTypeIsGuessedFromExtension() {
        #expect(FilePart.data(Data(), filename: "a.PNG").contentType == "image/png")
        #expect(FilePart.data(Data(), filename: "noext").contentType == "application/octet-stream")
        #expect(FilePart.data(Data(), filename: "x.json", contentType: "text/x").contentType == "text/x")
    }
}
