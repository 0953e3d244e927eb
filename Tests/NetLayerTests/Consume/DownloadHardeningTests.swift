import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// `download(to:)` against servers whose validators, 206 answers or Content-Range cannot be trusted,
// and against destinations that cannot be written: RFC 9110 §13.1.5 / §14.4 and DESIGN §14, §17.

/// The `Last-Modified` the routes send.
let downloadHardeningLastModified = "Tue, 15 Nov 1994 12:45:26 GMT"

extension WireTests {
    @Suite("Download hardening", .tags(.hardening))
    struct DownloadHardeningTests {
        static let server = TestServerPool.make()

        static let lastModified = downloadHardeningLastModified
        static let full = Data((0..<100).map { UInt8($0) })

        /// A 100-byte file sent with `validators`: a `Range: bytes=a-` gets a 206 with the rest (If-Range
        /// or not, so a resume that should not happen shows in the file); a plain request the first
        /// time gets 40 of the 100 bytes announced and a closed connection, later ones the whole file.
        static func routeCutShortOnce(_ path: String, validators: [(String, String)], on server: TestServer) {
            let served = HitCounter()
            server.route(path) { request in
                if let range = request.header("Range"), range.hasPrefix("bytes="),
                    let start = Int(range.dropFirst(6).dropLast()), start < 100
                {
                    return TestResponse(
                        status: 206, headers: validators + [("Content-Range", "bytes \(start)-99/100")],
                        body: full.subdata(in: start..<100))
                }
                if served.next() == 1 {
                    return TestResponse(
                        status: 200, headers: validators + [("Content-Length", "100")], body: full.prefix(40))
                }
                return TestResponse(status: 200, headers: validators, body: full)
            }
        }

        // MARK: If-Range carries only a strong validator

        @Test func aWeakETagIsNeverSentAsIfRange() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            // A weak ETag, with a Last-Modified that a Date would even prove strong: with an entity tag
            // present, the date must not be used either.
            let path = uniquePath()
            Self.routeCutShortOnce(
                path,
                validators: [
                    ("ETag", "W/\"v1\""), ("Last-Modified", Self.lastModified),
                    ("Date", "Wed, 16 Nov 1994 12:45:26 GMT"),
                ], on: server)
            let destination = scratch.file("weak.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor()
            let first = await #expect(throws: NetLayerError.self) {
                try await executor.download(to: destination, resumable: true)
            }
            #expect(first?.code == .transport)
            #expect(scratch.contents.isEmpty, "bytes kept under a weak validator")
            let download = try await executor.download(to: destination, resumable: true)
            let second = try #require(server.requests(path: path).dropFirst().first)
            #expect(second.header("Range") == nil && second.header("If-Range") == nil)
            #expect(download.head.statusCode == 200 && download.resumedFrom == 0)
            #expect(try Data(contentsOf: destination) == Self.full)
            #expect(scratch.contents == ["weak.bin"])
        }

        @Test(arguments: [
            ("no Date", [("Last-Modified", downloadHardeningLastModified)]),
            (
                "Date 59 s later",
                [("Last-Modified", downloadHardeningLastModified), ("Date", "Tue, 15 Nov 1994 12:46:25 GMT")]
            ),
            ("unparsable Date", [("Last-Modified", downloadHardeningLastModified), ("Date", "yesterday")]),
            ("malformed ETag", [("ETag", "v1"), ("Last-Modified", downloadHardeningLastModified)]),
        ])
        func aLastModifiedNotProvenStrongIsNeverSentAsIfRange(
            case name: String, validators: [(String, String)]
        )
            async throws
        {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            Self.routeCutShortOnce(path, validators: validators, on: server)
            let destination = scratch.file("dated.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor()
            _ = try? await executor.download(to: destination, resumable: true)
            #expect(scratch.contents.isEmpty, "[\(name)] bytes kept under a weak validator")
            let download = try await executor.download(to: destination, resumable: true)
            let second = try #require(server.requests(path: path).dropFirst().first)
            #expect(second.header("If-Range") == nil, "[\(name)] If-Range carried a weak validator")
            #expect(second.header("Range") == nil)
            #expect(download.resumedFrom == 0 && download.fileSize == 100)
            #expect(try Data(contentsOf: destination) == Self.full)
            #expect(scratch.contents == ["dated.bin"])
        }

        @Test func aLastModifiedProvenStrongByDateIsSentAsIfRange() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            // Exactly 60 s after Last-Modified: strong (RFC 9110 §8.8.2.2).
            Self.routeCutShortOnce(
                path,
                validators: [
                    ("Last-Modified", Self.lastModified), ("Date", "Tue, 15 Nov 1994 12:46:26 GMT"),
                ],
                on: server)
            let destination = scratch.file("dated.bin")
            let executor = TestAPI(server: server).target(path).makeExecutor()
            _ = try? await executor.download(to: destination, resumable: true)
            let download = try await executor.download(to: destination, resumable: true)
            let second = try #require(server.requests(path: path).dropFirst().first)
            #expect(second.header("If-Range") == Self.lastModified)
            #expect(second.header("Range") == "bytes=\(download.resumedFrom)-")
            #expect(download.head.statusCode == 206 && download.resumedFrom > 0 && download.fileSize == 100)
            #expect(try Data(contentsOf: destination) == Self.full)
            #expect(scratch.contents == ["dated.bin"])
        }

        // MARK: A 206 must answer a Range that was sent

        @Test(arguments: [false, true])
        func aPartialContentAnswerToADownloadThatAskedForTheWholeFileFails(resumable: Bool) async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(
                    status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 50-99/100")],
                    body: Data(repeating: 7, count: 50))
            }
            let destination = scratch.file("plain.bin")
            try Data("old".utf8).write(to: destination)
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().download(
                    to: destination, resumable: resumable)
            }
            #expect(error?.code == .fileFailed)
            #expect(server.requests(path: path).map { $0.header("Range") } == [nil])
            #expect(try Data(contentsOf: destination) == Data("old".utf8), "the tail was saved as the file")
            #expect(scratch.contents == ["plain.bin"])
        }

        // MARK: Content-Range must describe the rest of the file

        /// Leaves a resumable 60-byte partial file of `path` (strong ETag) beside `destination`, then
        /// resumes it against `answer` for the `Range` request. Returns the second call's outcome.
        static func resume(
            _ path: String, to destination: URL, answer: @escaping @Sendable () -> TestResponse,
            on server: TestServer
        ) async -> Result<Download, NetLayerError> {
            server.route(path) { request in
                if request.header("Range") != nil { return answer() }
                return TestResponse(
                    status: 200, headers: [("ETag", "\"v1\""), ("Content-Length", "100")],
                    body: Data(repeating: 1, count: 60))
            }
            let executor = TestAPI(server: server).target(path).makeExecutor()
            _ = try? await executor.download(to: destination, resumable: true)
            do {
                return .success(try await executor.download(to: destination, resumable: true))
            } catch let error as NetLayerError {
                return .failure(error)
            } catch {
                return .failure(.fileFailed("unexpected \(error)"))
            }
        }

        @Test(arguments: [
            "bytes 60-69/30",  // complete smaller than the bytes already held
            "bytes 60-9223372036854775807/9223372036854775807",  // last beyond complete, 10 bytes sent
            "bytes 60-9223372036854775807/*",  // the file would end past Int64.max
            "bytes 60-99999999999999999999/*",  // overflows Int64
            "bytes 60-69/100",  // stops short of the end of the file
            "bytes 60-99/100",  // 40 bytes announced, Content-Length: 10
            "bytes 60-59/100",  // last before first
            "bytes 60-69/1o0",  // not digits
            "bytes +60-69/70",  // a sign is not a digit
            "bytes 60-69",  // no complete length
            "items 60-69/70",  // another unit
        ])
        func aContentRangeThatContradictsItselfFailsAndDropsThePartialFile(contentRange: String) async throws
        {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            let destination = scratch.file("r.bin")
            let outcome = await Self.resume(
                path, to: destination,
                answer: {
                    TestResponse(
                        status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", contentRange)],
                        body: Data(repeating: 2, count: 10))
                }, on: server)
            let requests = server.requests(path: path)
            #expect(requests.count == 2 && requests.last?.header("Range") == "bytes=60-")
            guard case .failure(let error) = outcome else {
                Issue.record("\(contentRange.debugDescription) was accepted: \(outcome)")
                return
            }
            #expect(error.code == .fileFailed)
            #expect(scratch.contents.isEmpty, "left behind: \(scratch.contents)")
        }

        @Test func aPartialContentBodyShorterThanItsContentRangeFailsAndDropsThePartialFile() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            let destination = scratch.file("r.bin")
            // Chunked, so no Content-Length tells in advance: the body ends after 10 of the 40 bytes.
            let outcome = await Self.resume(
                path, to: destination,
                answer: {
                    var response = TestResponse(
                        status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 60-99/100")],
                        body: Data(repeating: 2, count: 10))
                    response.chunked = true
                    return response
                }, on: server)
            guard case .failure(let error) = outcome else {
                Issue.record("a 70-byte file was accepted as 100 bytes: \(outcome)")
                return
            }
            #expect(error.code == .fileFailed && error.message.contains("70 bytes"), "\(error.message)")
            #expect(scratch.contents.isEmpty, "left behind: \(scratch.contents)")
            // Nothing stale is resumed: the next call asks for the whole file.
            _ = try? await TestAPI(server: server).target(path).makeExecutor().download(
                to: destination, resumable: true)
            #expect(server.requests(path: path).last?.header("Range") == nil)
        }

        @Test func aContentRangeForTheRestOfTheFileIsAccepted() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            for (index, contentRange) in ["bytes 60-69/70", "bytes 60-69/*", "BYTES 60-69/70"].enumerated() {
                let destination = scratch.file("ok\(index).bin")
                let outcome = await Self.resume(
                    uniquePath() + "-\(index)", to: destination,
                    answer: {
                        TestResponse(
                            status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", contentRange)],
                            body: Data(repeating: 2, count: 10))
                    }, on: server)
                let download = try outcome.get()
                #expect(download.resumedFrom == 60 && download.fileSize == 70)
                #expect(
                    try Data(contentsOf: destination)
                        == Data(repeating: 1, count: 60) + Data(repeating: 2, count: 10))
            }
            #expect(scratch.contents == ["ok0.bin", "ok1.bin", "ok2.bin"])
        }

        // MARK: Destinations

        @Test(arguments: [
            String(repeating: "a", count: 250),
            String(repeating: "é", count: 127) + "x",  // 255 bytes, two per character
            String(repeating: "b", count: 232),  // the longest name whose partial file names are unchanged
            String(repeating: "c", count: 233),  // the shortest whose partial file names are shortened
        ])
        func aFileNameUpToNameMaxCanBeDownloadedAndResumed(name: String) async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let size: Int64 = 2 << 20
            let path = "/pattern/\(uniquePath())"
            let destination = scratch.file(name)
            let plain = try await TestAPI(server: server).target(path).makeExecutor(params: ["length": size])
                .download(to: destination)
            #expect(plain.fileSize == size && scratch.contents == [name])
            try FileManager.default.removeItem(at: destination)

            let executor = TestAPI(server: server).target(path).makeExecutor(params: [
                "length": size, "seed": 3, "interruptAfter": 1 << 20, "interruptOnce": 1,
                "interruptKey": path,
            ])
            let first = await #expect(throws: NetLayerError.self) {
                try await executor.download(to: destination, resumable: true)
            }
            #expect(first?.code == .transport)
            #expect(scratch.contents.count == 2 && scratch.contents.allSatisfy { $0.utf8.count <= 255 })
            let download = try await executor.download(to: destination, resumable: true)
            #expect(download.head.statusCode == 206 && download.resumedFrom > 0 && download.fileSize == size)
            let (checksum, length) = try TestPattern.checksumOfFile(destination)
            #expect(length == size && checksum == TestPattern.checksum(seed: 3, range: 0..<size))
            #expect(scratch.contents == [name])
        }

        @Test func aDestinationThatCannotBeWrittenFailsBeforeAnythingIsSent() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            try FileManager.default.createDirectory(
                at: scratch.file("dir"), withIntermediateDirectories: false)
            try Data("x".utf8).write(to: scratch.file("file"))
            let destinations = [
                scratch.file("no/such/dir/x.bin"),  // a missing directory
                scratch.file("file/x.bin"),  // a file where the directory should be
                URL(fileURLWithPath: scratch.file("dir").path, isDirectory: false),  // a directory
                scratch.file(String(repeating: "n", count: 256)),  // a name longer than NAME_MAX
            ]
            for destination in destinations {
                let path = uniquePath()
                server.route(path) { _ in .text("payload") }
                let error = await #expect(throws: NetLayerError.self) {
                    try await TestAPI(server: server).target(path).makeExecutor(
                        method: .post, body: .data(Data("order".utf8))
                    )
                    .download(to: destination)
                }
                #expect(error?.code == .fileFailed, "\(destination.path)")
                #expect(
                    server.requests(path: path).isEmpty, "sent although \(destination.path) cannot be written"
                )
                #expect(scratch.contents == ["dir", "file"])
            }
        }
    }
}
