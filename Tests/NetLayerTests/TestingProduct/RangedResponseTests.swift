import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

/// A response read off a raw socket: the status, the head's fields (lowercased names) and exactly
/// the body bytes that arrived before the connection closed or `Content-Length` was reached.
private struct RawAnswer: Sendable {
    var status: Int
    var fields: [String: String]
    var body: Data
    /// Whether the server closed the connection right after the body (a read then found EOF).
    var closedAfterBody: Bool
}

/// An answer `fetch` could not read.
private struct FetchError: Error, CustomStringConvertible {
    let description: String
}

/// Sends one request over a fresh connection and reads the answer, on a thread of its own (the
/// socket reads block; see `offThePool`).
private func fetch(
    _ server: TestServer, _ path: String, method: String = "GET", headers: [(String, String)] = [],
    keepAlive: Bool = false, receiveTimeout: Duration = .seconds(5)
) async throws -> RawAnswer {
    try await offThePool {
        let client = try TestRawClient(server: server, receiveTimeout: receiveTimeout)
        defer { client.close() }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if !keepAlive { request += "Connection: close\r\n" }
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        client.send(request + "\r\n")
        guard let head = client.readHead() else { throw FetchError(description: "no response head") }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusWord = lines.first?.split(separator: " ").dropFirst().first
        guard let status = statusWord.flatMap({ Int($0) }) else {
            throw FetchError(description: "no status in \(head.debugDescription)")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(fields["content-length"] ?? "0") ?? 0
        let body = method == "HEAD" ? Data() : client.readExactly(length)
        let closed = (method != "HEAD" && body.count < length) || client.read(1).isEmpty
        return RawAnswer(status: status, fields: fields, body: body, closedAfterBody: closed)
    }
}

/// The derived `ETag` of bytes, computed independently (FNV-1a 64 of the bytes, and the length).
private func derivedTag(_ data: Data) -> String {
    var checksum = TestChecksum()
    checksum.update(data)
    return "\"\(String(data.count, radix: 16))-\(checksum.hex)\""
}

extension WireTests {
    /// `LoopbackResponse.ranged` and `.rangedFile`: range requests (RFC 9110 §14), `If-Range`
    /// (§13.1.5) and cuts, checked on the bytes a raw socket receives.
    @Suite("NetLayerTesting: range-serving responses")
    struct RangedResponseTests {
        static let server = TestServerPool.make()
        static let data = TestPattern.bytes(seed: 5, range: 0..<1000)
        /// 1994-11-06 08:49:37 UTC, RFC 9110's example date.
        static let exampleDate = Date(timeIntervalSince1970: 784_111_777)

        @Test func theWholeBodyCarriesItsValidatorsAndAcceptRanges() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { .ranged(Self.data, for: $0, contentType: "image/png") }

            let whole = try await fetch(server, path)
            #expect(whole.status == 200)
            #expect(whole.body == Self.data)
            #expect(whole.fields["content-length"] == "1000")
            #expect(whole.fields["content-type"] == "image/png")
            #expect(whole.fields["accept-ranges"] == "bytes")
            #expect(whole.fields["etag"] == derivedTag(Self.data))
            #expect(whole.fields["last-modified"] == nil && whole.fields["content-range"] == nil)

            // HEAD: the same head, no body; a Range is not honoured (GET only).
            let head = try await fetch(server, path, method: "HEAD", headers: [("Range", "bytes=0-9")])
            #expect(head.status == 200 && head.fields["content-length"] == "1000")
            #expect(head.fields["etag"] == derivedTag(Self.data))
            #expect(head.closedAfterBody)
            let post = try await fetch(server, path, method: "POST", headers: [("Range", "bytes=0-9")])
            #expect(post.status == 200 && post.body == Self.data)
            // Other bytes, another tag.
            var changed = Self.data
            changed[changed.startIndex] ^= 0xFF
            #expect(derivedTag(changed) != derivedTag(Self.data))
        }

        struct RangeCase: Sendable, CustomTestStringConvertible {
            var range: String
            var status: Int
            /// `Content-Range` expected; the body is then those bytes (206) or empty (416).
            var contentRange: String?
            var testDescription: String { "Range: \(range) → \(status)" }
        }

        static let rangeCases: [RangeCase] = [
            .init(range: "bytes=0-99", status: 206, contentRange: "bytes 0-99/1000"),
            .init(range: "bytes=900-", status: 206, contentRange: "bytes 900-999/1000"),
            .init(range: "bytes=-100", status: 206, contentRange: "bytes 900-999/1000"),
            .init(range: "bytes=-5000", status: 206, contentRange: "bytes 0-999/1000"),
            .init(range: "bytes=990-2000", status: 206, contentRange: "bytes 990-999/1000"),
            .init(range: "bytes=999-999", status: 206, contentRange: "bytes 999-999/1000"),
            .init(range: "BYTES=0-0", status: 206, contentRange: "bytes 0-0/1000"),
            .init(range: "bytes=, 5-9 ,", status: 206, contentRange: "bytes 5-9/1000"),
            .init(range: "bytes=0-99999999999999999999999", status: 206, contentRange: "bytes 0-999/1000"),
            .init(range: "bytes=1000-", status: 416, contentRange: "bytes */1000"),
            .init(range: "bytes=-0", status: 416, contentRange: "bytes */1000"),
            .init(range: "bytes=99999999999999999999999-", status: 416, contentRange: "bytes */1000"),
            .init(range: "bytes=1000-1001, 2000-", status: 416, contentRange: "bytes */1000"),
            // Several ranges: the whole body (no multipart/byteranges).
            .init(range: "bytes=0-1, 5-6", status: 200, contentRange: nil),
            // Not a valid bytes ranges-specifier, or another unit: ignored.
            .init(range: "bytes=5-2", status: 200, contentRange: nil),
            .init(range: "bytes=abc", status: 200, contentRange: nil),
            .init(range: "bytes=0-1, x", status: 200, contentRange: nil),
            .init(range: "bytes=", status: 200, contentRange: nil),
            .init(range: "items=0-1", status: 200, contentRange: nil),
            .init(range: "0-1", status: 200, contentRange: nil),
        ]

        @Test(arguments: rangeCases)
        func rangesAreAnsweredAsRFC9110Says(_ rangeCase: RangeCase) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { .ranged(Self.data, for: $0) }
            let answer = try await fetch(server, path, headers: [("Range", rangeCase.range)])
            #expect(answer.status == rangeCase.status)
            #expect(answer.fields["content-range"] == rangeCase.contentRange)
            #expect(answer.fields["accept-ranges"] == "bytes")
            switch rangeCase.status {
            case 206:
                let bounds = try #require(rangeCase.contentRange?.dropFirst(6).split(separator: "/").first)
                let ends = bounds.split(separator: "-").compactMap { Int($0) }
                #expect(answer.body == Self.data.subdata(in: ends[0]..<(ends[1] + 1)))
                #expect(answer.fields["content-length"] == String(ends[1] + 1 - ends[0]))
                #expect(answer.fields["etag"] == derivedTag(Self.data))
            case 416:
                #expect(answer.body.isEmpty && answer.fields["content-length"] == "0")
            default:
                #expect(answer.body == Self.data)
            }
        }

        @Test func twoRangeFieldsAreIgnored() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { .ranged(Self.data, for: $0) }
            let answer = try await fetch(
                server, path, headers: [("Range", "bytes=0-9"), ("Range", "bytes=10-19")])
            #expect(answer.status == 200 && answer.body == Self.data)
        }

        @Test func anEmptyBodyHasNoSatisfiableFirstLastRange() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { .ranged(Data(), for: $0) }
            let fromStart = try await fetch(server, path, headers: [("Range", "bytes=0-")])
            #expect(fromStart.status == 416 && fromStart.fields["content-range"] == "bytes */0")
            let suffix = try await fetch(server, path, headers: [("Range", "bytes=-10")])
            #expect(suffix.status == 200 && suffix.body.isEmpty && suffix.fields["content-length"] == "0")
        }

        struct IfRangeCase: Sendable, CustomTestStringConvertible {
            var ifRange: String
            var honoured: Bool
            var testDescription: String { "If-Range: \(ifRange) → \(honoured ? 206 : 200)" }
        }

        static let ifRangeCases: [IfRangeCase] = [
            .init(ifRange: "\"v1\"", honoured: true),
            .init(ifRange: " \"v1\" ", honoured: true),
            .init(ifRange: "\"v2\"", honoured: false),
            .init(ifRange: "\"V1\"", honoured: false),
            .init(ifRange: "W/\"v1\"", honoured: false),
            .init(ifRange: "v1", honoured: false),
            .init(ifRange: "Sun, 06 Nov 1994 08:49:37 GMT", honoured: true),
            .init(ifRange: "Sunday, 06-Nov-94 08:49:37 GMT", honoured: true),
            .init(ifRange: "Sun Nov  6 08:49:37 1994", honoured: true),
            .init(ifRange: "Sun, 06 Nov 1994 08:49:38 GMT", honoured: false),
            .init(ifRange: "Sun, 06 Nov 1994 08:49:36 GMT", honoured: false),
            .init(ifRange: "Sun, 06 Nov 1994 08:49:37 UTC", honoured: false),
            .init(ifRange: "yesterday", honoured: false),
            .init(ifRange: "", honoured: false),
        ]

        @Test(arguments: ifRangeCases)
        func ifRangeMustMatchAValidatorExactly(_ ifRangeCase: IfRangeCase) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) {
                .ranged(
                    Self.data, for: $0, validators: .given(etag: "\"v1\"", lastModified: Self.exampleDate))
            }
            let answer = try await fetch(
                server, path, headers: [("Range", "bytes=10-19"), ("If-Range", ifRangeCase.ifRange)])
            #expect(answer.status == (ifRangeCase.honoured ? 206 : 200))
            #expect(answer.body == (ifRangeCase.honoured ? Self.data.subdata(in: 10..<20) : Self.data))
            #expect(answer.fields["etag"] == "\"v1\"")
            #expect(answer.fields["last-modified"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        }

        @Test func aWeakETagNeverMatchesAndNoValidatorsMeansNoMatch() async throws {
            let server = try Self.server.get()
            let weak = uniquePath()
            server.route(weak) {
                .ranged(Self.data, for: $0, validators: .given(etag: "W/\"v1\"", lastModified: nil))
            }
            let answer = try await fetch(
                server, weak, headers: [("Range", "bytes=0-0"), ("If-Range", "W/\"v1\"")])
            #expect(answer.status == 200 && answer.fields["etag"] == "W/\"v1\"")

            let bare = uniquePath()
            server.route(bare) {
                .ranged(Self.data, for: $0, validators: .given(etag: nil, lastModified: nil))
            }
            let plain = try await fetch(server, bare, headers: [("Range", "bytes=0-0")])
            #expect(
                plain.status == 206 && plain.fields["etag"] == nil && plain.fields["last-modified"] == nil)
            let guarded = try await fetch(
                server, bare, headers: [("Range", "bytes=0-0"), ("If-Range", "\"x\"")])
            #expect(guarded.status == 200)
        }

        @Test func cutAfterClosesTheConnectionMidBody() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { .ranged(Self.data, for: $0, cutAfter: 300) }
            let whole = try await fetch(server, path, keepAlive: true)
            #expect(whole.status == 200 && whole.fields["content-length"] == "1000")
            #expect(whole.body == Self.data.prefix(300))
            #expect(whole.closedAfterBody)

            // Counted in this response's body: a range's first 100 bytes.
            let cutRange = uniquePath()
            server.route(cutRange) { .ranged(Self.data, for: $0, cutAfter: 100) }
            let partial = try await fetch(
                server, cutRange, headers: [("Range", "bytes=500-")], keepAlive: true)
            #expect(partial.status == 206 && partial.fields["content-length"] == "500")
            #expect(partial.body == Self.data.subdata(in: 500..<600))

            let negative = uniquePath()
            server.route(negative) { .ranged(Self.data, for: $0, cutAfter: -5) }
            let nothing = try await fetch(server, negative, keepAlive: true)
            #expect(nothing.status == 200 && nothing.body.isEmpty && nothing.closedAfterBody)
        }

        @Test func aFileIsServedInPiecesWithItsModificationTime() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("big.bin")
            let content = TestPattern.bytes(seed: 8, range: 0..<600_000)  // three 256 KiB pieces
            try content.write(to: file)
            try FileManager.default.setAttributes(
                [.modificationDate: Self.exampleDate], ofItemAtPath: file.path)
            let path = uniquePath()
            server.route(path) { .rangedFile(file, for: $0, contentType: "text/csv") }

            let whole = try await fetch(server, path)
            #expect(whole.status == 200 && whole.body == content)
            #expect(whole.fields["content-type"] == "text/csv")
            #expect(whole.fields["last-modified"] == "Sun, 06 Nov 1994 08:49:37 GMT")
            let etag = try #require(whole.fields["etag"])
            #expect(etag.hasPrefix("\"927c0-") && etag.hasSuffix("\""))

            let partial = try await fetch(
                server, path, headers: [("Range", "bytes=200000-599999"), ("If-Range", etag)])
            #expect(partial.status == 206 && partial.fields["content-range"] == "bytes 200000-599999/600000")
            #expect(partial.body == content.subdata(in: 200_000..<600_000))
            let byDate = try await fetch(
                server, path,
                headers: [("Range", "bytes=-10"), ("If-Range", "Sun, 06 Nov 1994 08:49:37 GMT")])
            #expect(byDate.status == 206 && byDate.body == content.suffix(10))

            // The file changed: the old tag no longer matches, and the new bytes are sent whole.
            let changed = TestPattern.bytes(seed: 9, range: 0..<600_000)
            try changed.write(to: file)
            try FileManager.default.setAttributes(
                [.modificationDate: Self.exampleDate.addingTimeInterval(60)], ofItemAtPath: file.path)
            let stale = try await fetch(
                server, path, headers: [("Range", "bytes=200000-"), ("If-Range", etag)])
            #expect(stale.status == 200 && stale.body == changed)
            #expect(stale.fields["etag"] != etag)
        }

        @Test func aFileThatCannotBeServedIsA500WithTheReason() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let missing = uniquePath()
            server.route(missing) { .rangedFile(scratch.file("absent.bin"), for: $0) }
            let absent = try await fetch(server, missing)
            #expect(absent.status == 500)
            #expect(
                String(decoding: absent.body, as: UTF8.self).hasPrefix(
                    "cannot serve \(scratch.file("absent.bin").path): "))

            let directory = uniquePath()
            server.route(directory) { .rangedFile(scratch.url, for: $0) }
            let notAFile = try await fetch(server, directory)
            #expect(notAFile.status == 500)
            #expect(String(decoding: notAFile.body, as: UTF8.self).hasSuffix("not a regular file"))
        }

        @Test func aFileThatShrinksWhileSentEndsTheBodyInsteadOfStalling() async throws {
            // The writer counted a short piece as complete and kept the connection open: a
            // keep-alive client waited for bytes that never came.
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.file("shrinking.bin")
            try Self.data.write(to: file)
            let path = uniquePath()
            server.route(path) { request in
                let response = LoopbackResponse.rangedFile(file, for: request)
                // After the size was read, before the bytes are.
                try? Self.data.prefix(100).write(to: file)
                return response
            }
            let start = ContinuousClock.now
            let answer = try await fetch(server, path, keepAlive: true, receiveTimeout: .seconds(3))
            #expect(answer.status == 200 && answer.fields["content-length"] == "1000")
            #expect(answer.body == Self.data.prefix(100))
            #expect(answer.closedAfterBody)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }
}

/// HTTP-dates as RFC 9110 §5.6.7 writes and reads them.
@Suite("NetLayerTesting: HTTP dates")
struct HTTPDateTests {
    @Test func formatsIMFFixdates() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0.9)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(
            HTTPDate.format(Date(timeIntervalSince1970: 4_102_444_800)) == "Fri, 01 Jan 2100 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -.infinity)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func readsWhatItWritesForAnySecond() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int64.random(in: -2_208_988_800...4_102_444_800, using: &random)  // 1900–2100
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "\(seconds)")
        }
    }

    @Test func readsTheObsoleteFormsAndRefusesImpossibleDates() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        let now = try #require(HTTPDate.parse("Sun, 22 Nov 2026 00:00:00 GMT"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        // A two-digit year is the latest one not more than 50 years ahead.
        #expect(
            HTTPDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now: now)
                == Date(timeIntervalSince1970: 3_155_760_000))
        for text in [
            "Sun, 29 Feb 1900 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov -994 08:49:37 GMT", "Sun, 31 Apr 1994 08:49:37 GMT", "", "GMT", "Sun,",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}
