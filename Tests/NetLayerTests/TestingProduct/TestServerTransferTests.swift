import Foundation
import NetLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// The test server's transfer support — `TestPattern`, the streamed `/sink`, `/pattern` and
    /// `/firehose` routes and their records — checked with plain URLSession and raw sockets.
    @Suite("Test server transfers")
    struct TestServerTransferTests {
        static let server = TestServerPool.make()
        /// A plain session without a cache, so repeated GETs of one URL (with different `Range`s) all
        /// reach the server.
        static let session: URLSession = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            return URLSession(configuration: configuration)
        }()

        private struct SinkAnswer: Decodable {
            var length: Int64
            var checksum: String
        }

        // MARK: - TestPattern and TestChecksum

        @Test func patternIsSplitMix64LittleEndianAndSlicesAgree() {
            #expect(
                [UInt8](TestPattern.bytes(range: 0..<8)) == [0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2])
            let whole = TestPattern.bytes(seed: 9, range: 0..<1_000)
            for (start, end) in [(0, 1_000), (3, 5), (7, 17), (8, 16), (13, 999), (500, 500)] {
                let slice = TestPattern.bytes(seed: 9, range: Int64(start)..<Int64(end))
                #expect(slice == whole.subdata(in: start..<end), "\(start)..<\(end)")
            }
            #expect(TestPattern.bytes(seed: 10, range: 0..<1_000) != whole)
            // Not periodic: no 4 KiB window repeats at a 1 MiB distance.
            #expect(
                TestPattern.bytes(range: 0..<4_096) != TestPattern.bytes(range: 1 << 20..<(1 << 20) + 4_096))
        }

        @Test func checksumIsFNV1aAndIndependentOfSplits() {
            #expect(TestChecksum().value == 0xCBF2_9CE4_8422_2325)
            var letter = TestChecksum()
            letter.update(Data("a".utf8))
            #expect(letter.value == 0xAF63_DC4C_8601_EC8C)
            #expect(letter.hex == "af63dc4c8601ec8c")

            let data = TestPattern.bytes(seed: 3, range: 5..<300_005)
            var whole = TestChecksum()
            whole.update(data)
            var pieces = TestChecksum()
            var offset = 0
            for size in [1, 7, 4_096, 65_537, 0, 100_000, 1 << 20] {
                let end = min(data.count, offset + size)
                pieces.update(data.subdata(in: offset..<end))
                offset = end
            }
            #expect(pieces == whole)
            #expect(whole.count == 300_000)
            #expect(TestPattern.checksum(seed: 3, range: 5..<300_005) == whole.value)
        }

        @Test func patternFileMatchesItsChecksum() throws {
            let url = temporaryFile()
            defer { try? FileManager.default.removeItem(at: url) }
            let length: Int64 = 3 << 20 + 5
            try TestPattern.writeFile(at: url, length: length, seed: 4)
            let file = try TestPattern.checksumOfFile(url)
            #expect(file.length == length)
            #expect(file.checksum == TestPattern.checksum(seed: 4, range: 0..<length))
            let data = try Data(contentsOf: url)
            #expect(data.suffix(100) == TestPattern.bytes(seed: 4, range: (length - 100)..<length))
        }

        // MARK: - /sink

        @Test func sinkStreams64MiBUploadFromFile() async throws {
            let server = try Self.server.get()
            let path = "/sink/\(uniquePath().dropFirst(3))"
            let length: Int64 = 64 << 20
            let url = temporaryFile()
            defer { try? FileManager.default.removeItem(at: url) }
            try TestPattern.writeFile(at: url, length: length, seed: 1)
            let expected = TestPattern.checksum(seed: 1, range: 0..<length)

            var request = URLRequest(url: server.url(path + "?kind=file"))
            request.httpMethod = "PUT"
            let (data, response) = try await Self.session.upload(for: request, fromFile: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let answer = try JSONDecoder().decode(SinkAnswer.self, from: data)
            #expect(answer.length == length)
            #expect(answer.checksum == TestChecksum.hex(expected))

            let records = server.sinkRecords(path: path)
            try #require(records.count == 1)
            let record = records[0]
            #expect(record.complete && record.length == length && record.checksum == expected)
            #expect(record.method == "PUT" && record.rawQuery == "kind=file")
            #expect(record.head == TestPattern.bytes(seed: 1, range: 0..<65_536))
            #expect(record.tail == TestPattern.bytes(seed: 1, range: (length - 65_536)..<length))
            let recorded = server.requests(path: path)
            #expect(recorded.count == 1 && recorded.first?.body.isEmpty == true)
        }

        @Test func sinkStreamsChunkedUploadFromInputStream() async throws {
            let server = try Self.server.get()
            let path = "/sink/\(uniquePath().dropFirst(3))"
            let length: Int64 = 8 << 20 + 3
            let url = temporaryFile()
            defer { try? FileManager.default.removeItem(at: url) }
            try TestPattern.writeFile(at: url, length: length, seed: 2)

            var request = URLRequest(url: server.url(path))
            request.httpMethod = "POST"
            request.httpBodyStream = InputStream(url: url)
            let (data, response) = try await Self.session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try JSONDecoder().decode(SinkAnswer.self, from: data).length == length)

            let record = try #require(server.sinkRecords(path: path).first)
            #expect(record.header("Transfer-Encoding")?.lowercased() == "chunked")
            #expect(record.header("Content-Length") == nil)
            #expect(record.complete && record.length == length)
            #expect(record.checksum == TestPattern.checksum(seed: 2, range: 0..<length))
        }

        @Test func sinkHonoursExpectContinueAndChunkedFramingOnTheWire() throws {
            let server = try Self.server.get()
            let path = "/sink/\(uniquePath().dropFirst(3))"
            let client = try TestRawClient(server: server)
            client.send("POST \(path)?status=201 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n")
            client.send("Expect: 100-continue\r\n\r\n")
            let interim = try #require(client.readHead())
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"))
            let body = TestPattern.bytes(range: 0..<100_000)
            var framed = Data()
            for start in stride(from: 0, to: body.count, by: 30_000) {
                let piece = body.subdata(in: start..<min(body.count, start + 30_000))
                framed.append(
                    Data("\(String(piece.count, radix: 16));ext=1\r\n".utf8) + piece + Data("\r\n".utf8))
            }
            client.send(framed + Data("0\r\nX-Trailer: t\r\n\r\n".utf8))
            let head = try #require(client.readHead())
            #expect(head.hasPrefix("HTTP/1.1 201 "))
            let record = try #require(server.sinkRecords(path: path).first)
            #expect(record.complete && record.length == 100_000)
            #expect(record.checksum == TestPattern.checksum(range: 0..<100_000))
            #expect(
                server.requests(path: path).first?.trailers == HeaderFields(received: [("X-Trailer", "t")]))
        }

        @Test func sinkRecordsAnIncompleteUploadWhenTheClientHangsUp() async throws {
            let server = try Self.server.get()
            let path = "/sink/\(uniquePath().dropFirst(3))"
            let client = try TestRawClient(server: server)
            client.send("PUT \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
            client.send(TestPattern.bytes(range: 0..<300_000))
            client.close()
            let records = await server.waitForSinkRecords(count: 1, path: path)
            let record = try #require(records.first)
            #expect(!record.complete)
            #expect(record.length == 300_000)
            #expect(record.checksum == TestPattern.checksum(range: 0..<300_000))
            #expect(record.tail == TestPattern.bytes(range: (300_000 - 65_536)..<300_000))
            #expect(server.requests(path: path).isEmpty, "an unfinished request is not a recorded request")
        }

        @Test func sinkAcceptsBodiesAboveMaxBodyBytesOthersGet413() async throws {
            let server = try TestServer.start(maxBodyBytes: 1 << 20)
            defer { server.stop() }
            let body = TestPattern.bytes(range: 0..<(3 << 20))
            var request = URLRequest(url: server.url("/sink"))
            request.httpMethod = "POST"
            let (data, response) = try await Self.session.upload(for: request, from: body)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try JSONDecoder().decode(SinkAnswer.self, from: data).length == 3 << 20)
            #expect(
                server.sinkRecords(path: "/sink").first?.checksum
                    == TestPattern.checksum(range: 0..<(3 << 20)))

            let client = try TestRawClient(server: server)
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(3 << 20)\r\n\r\n")
            #expect(client.readHead()?.hasPrefix("HTTP/1.1 413 ") == true)
        }

        // MARK: - /pattern

        @Test func patternDownloadToFileMatchesTheChecksum() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let length: Int64 = 48 << 20 + 1
            let (file, response) = try await Self.session.download(
                for: URLRequest(url: server.url("\(path)?length=\(length)&seed=6")))
            defer { try? FileManager.default.removeItem(at: file) }
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "Content-Length") == String(length))
            #expect(http.value(forHTTPHeaderField: "ETag") == "\"p-\(length)-6\"")
            #expect(http.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
            #expect(http.value(forHTTPHeaderField: "Last-Modified") == nil)
            let downloaded = try TestPattern.checksumOfFile(file)
            #expect(downloaded.length == length)
            #expect(downloaded.checksum == TestPattern.checksum(seed: 6, range: 0..<length))
            let record = try #require(await server.waitForEndedPatternRecords(count: 1, path: path).first)
            #expect(record.status == 200 && record.finished && record.ended && record.bytesWritten == length)
        }

        @Test func rangeRequestsGet206WithTheRightBytes() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let url = server.url("\(path)?length=100000&seed=7&lastModified=1")
            let cases: [(range: String, ifRange: String?, expected: Range<Int64>)] = [
                ("bytes=1000-1999", nil, 1_000..<2_000),
                ("bytes=99000-", "\"p-100000-7\"", 99_000..<100_000),
                ("bytes=-10", TestTransferRoutes.lastModified, 99_990..<100_000),
                ("bytes=0-999999", nil, 0..<100_000),
            ]
            for item in cases {
                let (data, http) = try await fetch(
                    url, headers: ["Range": item.range, "If-Range": item.ifRange])
                #expect(http.statusCode == 206, "\(item.range)")
                let contentRange = "bytes \(item.expected.lowerBound)-\(item.expected.upperBound - 1)/100000"
                #expect(http.value(forHTTPHeaderField: "Content-Range") == contentRange)
                #expect(http.value(forHTTPHeaderField: "Last-Modified") == TestTransferRoutes.lastModified)
                #expect(data == TestPattern.bytes(seed: 7, range: item.expected), "\(item.range)")
            }
            let records = await server.waitForEndedPatternRecords(count: cases.count, path: path)
            #expect(records.map(\.status) == [206, 206, 206, 206])
            #expect(records.map(\.rangeHeader) == cases.map(\.range))
            #expect(
                records.map(\.bytesWritten) == cases.map { $0.expected.upperBound - $0.expected.lowerBound })
        }

        @Test func ifRangeMismatchOrDisabledRangesSendTheWholeBody() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let queries = [
                "length=5000&etag=v1", "length=5000&etag=v1", "length=5000&etag=none", "length=5000&ranges=0",
            ]
            let ifRanges: [String?] = ["\"v2\"", "W/\"v1\"", "\"p-5000-0\"", nil]
            for (query, ifRange) in zip(queries, ifRanges) {
                let (data, http) = try await fetch(
                    server.url("\(path)?\(query)"), headers: ["Range": "bytes=10-20", "If-Range": ifRange])
                #expect(http.statusCode == 200, "\(query) \(ifRange ?? "-")")
                #expect(data == TestPattern.bytes(range: 0..<5_000))
                #expect(http.value(forHTTPHeaderField: "Content-Range") == nil)
            }
            let (_, tagged) = try await fetch(server.url("\(path)?length=5000&etag=v1"), headers: [:])
            #expect(tagged.value(forHTTPHeaderField: "ETag") == "\"v1\"")
            let (_, untagged) = try await fetch(
                server.url("\(path)?length=5000&etag=none&ranges=0"), headers: [:])
            #expect(untagged.value(forHTTPHeaderField: "ETag") == nil)
            #expect(untagged.value(forHTTPHeaderField: "Accept-Ranges") == nil)
            let records = await server.waitForEndedPatternRecords(count: 6, path: path)
            #expect(records.map(\.ifRangeHeader) == ifRanges + [nil, nil])
            #expect(records.allSatisfy { $0.status == 200 && $0.finished && $0.bytesWritten == 5_000 })
        }

        @Test func unsatisfiableRangeGets416() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let (data, http) = try await fetch(
                server.url("\(path)?length=1000"), headers: ["Range": "bytes=1000-"])
            #expect(http.statusCode == 416)
            #expect(http.value(forHTTPHeaderField: "Content-Range") == "bytes */1000")
            #expect(data.isEmpty)
            #expect(server.patternRecords(path: path).map(\.status) == [416])
        }

        @Test func headSendsTheHeadersOnly() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            var request = URLRequest(url: server.url("\(path)?length=\(5 << 30)&lastModified=1"))
            request.httpMethod = "HEAD"
            let (data, response) = try await Self.session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200 && data.isEmpty)
            #expect(http.value(forHTTPHeaderField: "Content-Length") == String(5 << 30))
            #expect(http.value(forHTTPHeaderField: "Last-Modified") == TestTransferRoutes.lastModified)
            let record = await server.waitForPatternRecord(path: path) { $0.ended }
            #expect(record?.finished == true && record?.bytesWritten == 0)
        }

        @Test func interruptAfterCutsTheBodyAndInterruptOnceLetsTheRetryFinish() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let key = UUID().uuidString
            let url = server.url(
                "\(path)?length=\(4 << 20)&interruptAfter=\(1 << 20)&interruptOnce=1&interruptKey=\(key)")
            do {
                let (data, _) = try await fetch(url, headers: [:])
                #expect(data.count < 4 << 20, "a cut body must not look complete")
            } catch {
                // URLSession reports the short body as an error: also fine.
            }
            let first = await server.waitForPatternRecord(path: path) { $0.ended }
            #expect(first?.bytesWritten == 1 << 20 && first?.finished == false)

            let (data, http) = try await fetch(url, headers: [:])
            #expect(http.statusCode == 200)
            #expect(data == TestPattern.bytes(range: 0..<(4 << 20)))
            let records = await server.waitForEndedPatternRecords(count: 2, path: path)
            #expect(records.map(\.finished) == [false, true])

            // Without interruptOnce every response is cut; on the wire it is exactly K bytes then EOF.
            let client = try TestRawClient(server: server)
            client.send("GET \(path)?length=10000&interruptAfter=1234 HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try #require(client.readHead())
            #expect(head.contains("Content-Length: 10000\r\n"))
            #expect(client.readExactly(20_000) == TestPattern.bytes(range: 0..<1_234))
        }

        @Test func abandonedPacedDownloadEndsPromptly() async throws {
            let server = try Self.server.get()
            let path = "/pattern/\(uniquePath().dropFirst(3))"
            let client = try TestRawClient(server: server)
            client.send("GET \(path)?length=\(64 << 20)&pace=200 HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try #require(client.readHead())
            #expect(client.readExactly(256 << 10) == TestPattern.bytes(range: 0..<(256 << 10)))
            let writing = await server.waitForPatternRecord(path: path) { $0.bytesWritten > 0 }
            #expect(writing?.ended == false)
            let hungUp = ContinuousClock.now
            client.close()
            let record = await server.waitForPatternRecord(path: path, timeout: .seconds(2)) { $0.ended }
            #expect(record?.ended == true && record?.finished == false)
            #expect(ContinuousClock.now - hungUp < .seconds(1))
            #expect((record?.bytesWritten ?? 0) < 2 << 20)
        }

        // MARK: - /firehose

        @Test func firehoseBlocksWhileTheClientDoesNotRead() async throws {
            let server = try Self.server.get()
            let path = "/firehose/\(uniquePath().dropFirst(3))"
            let client = try TestRawClient(server: server, receiveBufferSize: 64 << 10)
            client.send("GET \(path)?length=\(1 << 30) HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try #require(client.readHead())
            let stalled = try #require(await settledBytesWritten(server, path: path))
            #expect(stalled > 0 && stalled < 32 << 20, "the server's send() must block: \(stalled)")
            #expect(server.patternRecords(path: path).first?.ended == false)

            let read = client.readExactly(16 << 20)
            #expect(read.prefix(4_096) == TestPattern.bytes(range: 0..<4_096))
            let moved = await server.waitForPatternRecord(path: path) { $0.bytesWritten > stalled }
            #expect((moved?.bytesWritten ?? 0) > stalled)
            client.close()
            let ended = await server.waitForPatternRecord(path: path, timeout: .seconds(2)) { $0.ended }
            #expect(ended?.ended == true && ended?.finished == false)
        }

        // MARK: - Helpers

        /// Polls the firehose record until `bytesWritten` has not changed for 300 ms.
        private func settledBytesWritten(_ server: TestServer, path: String) async -> Int64? {
            var last: Int64 = -1
            var since = ContinuousClock.now
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let current = server.patternRecords(path: path).first?.bytesWritten ?? -1
                if current != last {
                    last = current
                    since = ContinuousClock.now
                } else if current > 0, ContinuousClock.now - since >= .milliseconds(300) {
                    return current
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }

        private func fetch(_ url: URL, headers: [String: String?]) async throws -> (Data, HTTPURLResponse) {
            var request = URLRequest(url: url)
            for (name, value) in headers {
                if let value { request.setValue(value, forHTTPHeaderField: name) }
            }
            let (data, response) = try await Self.session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        }

        private func temporaryFile() -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "netlayer-transfer-\(UUID().uuidString)")
        }
    }
}
