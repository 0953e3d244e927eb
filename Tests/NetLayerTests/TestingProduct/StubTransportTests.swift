import Foundation
import NetLayer
import NetLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A resource whose calls go to a stub; the domain is never resolved.
private func stubbedAPI(_ stub: StubTransport, options: ResourceOptions = ResourceOptions()) -> Resource {
    Resource(protocol: .https, domain: "api.example.com", version: "v1", transport: stub, options: options)
}

/// The stub transport of the NetLayerTesting product, driven through the whole NetLayer pipeline.
@Suite("NetLayerTesting: stub transport")
struct StubTransportTests {
    @Test func answersCannedResponsesByMethodAndPath() async throws {
        let stub = StubTransport(routes: [
            StubRoute(.get, "/v1/books", .json(#"[{"id":1,"title":"Dune"}]"#)),
            StubRoute(.post, "/v1/books", .json(#"{"id":2,"title":"Emma"}"#, status: 201)),
        ])
        let books = EchoTarget(resource: stubbedAPI(stub), path: "/books")
        let list = try await books.makeExecutor().execute(model: [Book].self)
        #expect(list == [Book(id: 1, title: "Dune")])
        let created = try await books.makeExecutor(
            method: .post, body: .json(NewBook(title: "Emma", tags: []))
        )
        .response(model: Book.self)
        #expect(created.value == Book(id: 2, title: "Emma"))
        #expect(created.statusCode == 201)
        #expect(stub.requests.map(\.method) == ["GET", "POST"])
        #expect(stub.requests(path: "/v1/books").count == 2)
    }

    @Test func matchesQueryItemsAndLetsLaterRoutesWin() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/books", .json("[]"))
        stub.on(.get, "/v1/books", query: ["page": "2"], .json(#"[{"id":3,"title":"Kim"}]"#))
        let books = EchoTarget(resource: stubbedAPI(stub), path: "/books")
        let first = try await books.makeExecutor(params: ["page": 1]).execute(model: [Book].self)
        let second = try await books.makeExecutor(params: ["page": 2]).execute(model: [Book].self)
        #expect(first.isEmpty)
        #expect(second == [Book(id: 3, title: "Kim")])
        let request = try #require(stub.requests.last)
        #expect(request.queryItems == [URLQueryItem(name: "page", value: "2")])
        #expect(request.rawQuery == "page=2")
        #expect(request.url?.absoluteString == "https://api.example.com/v1/books?page=2")
    }

    @Test func answersFromAClosure() async throws {
        let calls = HitCounter()
        let stub = StubTransport { request in
            let call = calls.next()
            return .json(#"{"id":\#(call),"title":"\#(request.header("x-title") ?? "?")"}"#)
        }
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/books/:id")
        let book = try await target.makeExecutor(pathParts: ["id": 9], headers: ["X-Title": "Dune"])
            .execute(model: Book.self)
        #expect(book == Book(id: 1, title: "Dune"))
        #expect(stub.requests.first?.path == "/v1/books/9")
    }

    @Test func recordsHeadersCaseInsensitively() async throws {
        let stub = StubTransport { _ in .status(204) }
        let api = Resource(
            protocol: .https, domain: "api.example.com", defaultHeaders: ["Authorization": "Bearer t"],
            transport: stub)
        _ = try await EchoTarget(resource: api, path: "/ping").makeExecutor(headers: ["X-Request-ID": "r1"])
            .execute()
        let request = try #require(stub.requests.first)
        #expect(request.header("authorization") == "Bearer t")
        #expect(request.headerFields["x-request-id"] == "r1")
        #expect(request.headerValues("X-REQUEST-ID") == ["r1"])
        #expect(request.header("Content-Length") == nil)
    }

    @Test func recordsExactFormAndJSONBodies() async throws {
        let stub = StubTransport { _ in .json(#"{"id":1,"title":"t"}"#) }
        let books = EchoTarget(resource: stubbedAPI(stub), path: "/books")
        _ = try await books.makeExecutor(method: .post, params: ["title": "Dune & Co", "n": 2]).execute()
        _ = try await books.makeExecutor(method: .post, body: .json(NewBook(title: "Dune", tags: ["sf"])))
            .execute()
        let form = stub.requests[0]
        #expect(form.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(form.bodyText == "n=2&title=Dune%20%26%20Co")
        let json = stub.requests[1]
        #expect(json.header("Content-Type") == "application/json")
        #expect(json.body == Data(#"{"tags":["sf"],"title":"Dune"}"#.utf8))
        #expect(try json.decodeBody(as: NewBook.self).tags == ["sf"])
    }

    @Test func recordsFileAndMultipartBodiesAsBytes() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stub-\(UUID().uuidString).bin")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stub = StubTransport { _ in .status(204) }
        let uploads = EchoTarget(resource: stubbedAPI(stub), path: "/uploads")
        _ = try await uploads.makeExecutor(method: .put, body: .file(file)).execute()
        _ = try await uploads.makeExecutor(method: .put, body: .file(file, range: 10..<20)).execute()
        _ = try await uploads.makeExecutor(
            method: .post, params: ["title": "Dune"],
            files: ["cover": .file(file, filename: "cover.bin", contentType: "application/octet-stream")]
        ).execute()
        #expect(stub.requests[0].body == bytes)
        #expect(stub.requests[1].body == bytes[10..<20])
        let multipart = stub.requests[2]
        let contentType = try #require(multipart.header("Content-Type"))
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        var expected = Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nDune\r\n".utf8)
        expected.append(
            Data(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"cover\"; filename=\"cover.bin\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8))
        expected.append(bytes)
        expected.append(Data("\r\n--\(boundary)--\r\n".utf8))
        #expect(multipart.body == expected)
    }

    @Test func unmatchedRequestsGetA404ThatValidationRejectsWithItsBody() async throws {
        let stub = StubTransport(routes: [StubRoute(.get, "/v1/books", .json("[]"))])
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/authors")
        let error = await #expect(throws: NetLayerError.self) { try await target.makeExecutor().execute() }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.statusCode == 404)
        #expect(error?.body == Data("no stub for GET /v1/authors".utf8))
    }

    @Test func unmatchedRequestsCanFailInstead() async throws {
        let stub = StubTransport(unmatched: .fail)
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/authors")
        let error = await #expect(throws: NetLayerError.self) { try await target.makeExecutor().execute() }
        #expect(error?.code == .transport)
        #expect((error?.underlying as? UnmatchedRequestError)?.request.path == "/v1/authors")
    }

    @Test func anUnmatchedRequestIsNamedInTheErrorDescriptionWithSecretsRedacted() async throws {
        // The description (what Swift Testing prints for a caught error) said only "answered 404
        // Not Found (26 bytes)"; the request without a stub was in the body alone.
        let stub = StubTransport()
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/repos/a/b")
        let error = await #expect(throws: NetLayerError.self) {
            try await target.makeExecutor(params: ["token": "ab"]).execute()
        }
        let unmatched = "no stub for GET /v1/repos/a/b?token=<redacted>"
        #expect(
            error?.description
                == "NetLayer.unacceptableStatus: GET https://api.example.com/v1/repos/a/b?token=<redacted> answered 404 Not Found (\(unmatched.utf8.count) bytes) · body: \(unmatched)"
        )
        #expect(error?.body == Data(unmatched.utf8))
        // The recording keeps what was sent.
        #expect(stub.requests.last?.queryValue("token") == "ab")
    }

    @Test func unmatchedRequestsThatFailNameTheRequestWithSecretsRedacted() async throws {
        let stub = StubTransport(unmatched: .fail)
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/repos/a/b")
        let error = await #expect(throws: NetLayerError.self) {
            try await target.makeExecutor(params: ["page": 2, "token": "ab"]).execute()
        }
        let description = try #require(error?.description)
        #expect(error?.code == .transport)
        #expect(
            description.hasSuffix("failed: no stub for GET /v1/repos/a/b?page=2&token=<redacted>"),
            "\(description)")
        #expect(!description.contains("token=ab"), "\(description)")
        let unmatched = try #require(error?.underlying as? UnmatchedRequestError)
        #expect(unmatched.description == "no stub for GET /v1/repos/a/b?page=2&token=<redacted>")
        #expect(unmatched.request.target == "/v1/repos/a/b?page=2&token=ab")
    }

    @Test func unmatchedRequestsAreRedactedWithTheGivenRedaction() async throws {
        let redaction = Redaction(names: ["sig"], fragments: [])
        let stub = StubTransport(unmatched: .fail, redaction: redaction)
        let api = stubbedAPI(stub, options: ResourceOptions(redaction: redaction))
        let error = await #expect(throws: NetLayerError.self) {
            try await EchoTarget(resource: api, path: "/files").makeExecutor(params: [
                "sig": "s1", "token": "t",
            ])
            .execute()
        }
        let description = try #require(error?.description)
        #expect(description.hasSuffix("no stub for GET /v1/files?sig=<redacted>&token=t"), "\(description)")

        let notFound = StubTransport(redaction: redaction)
        let missing = await #expect(throws: NetLayerError.self) {
            try await EchoTarget(resource: stubbedAPI(notFound), path: "/files").makeExecutor(params: [
                "sig": "s1"
            ]).execute()
        }
        #expect(missing?.body == Data("no stub for GET /v1/files?sig=<redacted>".utf8))
    }

    @Test func validationAndDecodingRunOnStubbedAnswers() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/books/1", .json(#"{"error":"gone"}"#, status: 404))
        stub.on(.get, "/v1/books/2", .json(#"{"id":"two"}"#))
        let book = EchoTarget(resource: stubbedAPI(stub), path: "/books/:id")
        let missing = await #expect(throws: NetLayerError.self) {
            try await book.makeExecutor(pathParts: ["id": 1]).execute(model: Book.self)
        }
        #expect(missing?.code == .unacceptableStatus)
        #expect(missing?.body == Data(#"{"error":"gone"}"#.utf8))
        let garbled = await #expect(throws: NetLayerError.self) {
            try await book.makeExecutor(pathParts: ["id": 2]).execute(model: Book.self)
        }
        #expect(garbled?.code == .decodingFailed)
    }

    @Test func redirectsAreFollowedThroughTheStub() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/old", StubResponse(status: 301, headers: [("Location", "/v1/new")]))
        stub.on(.get, "/v1/new", .text("here"))
        let data = try await EchoTarget(resource: stubbedAPI(stub), path: "/old").makeExecutor().execute()
        #expect(String(decoding: data, as: UTF8.self) == "here")
        #expect(stub.requests.map(\.path) == ["/v1/old", "/v1/new"])
    }

    @Test func failuresSurfaceAsTransportAndTimedOutErrors() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/lost", .failure(.networkConnectionLost))
        stub.on(.get, "/v1/slow", .failure(.timedOut))
        let api = stubbedAPI(stub)
        let lost = await #expect(throws: NetLayerError.self) {
            try await EchoTarget(resource: api, path: "/lost").makeExecutor().execute()
        }
        #expect(lost?.code == .transport)
        #expect(lost?.urlError?.code == .networkConnectionLost)
        let slow = await #expect(throws: NetLayerError.self) {
            try await EchoTarget(resource: api, path: "/slow").makeExecutor().execute()
        }
        #expect(slow?.code == .timedOut)
    }

    @Test func aDelayIsCutByTheIdleTimeoutAndTheTotalDeadline() async throws {
        let stub = StubTransport { _ in StubResponse.text("late").delayed(by: .seconds(300)) }
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/slow")
        let clock = ContinuousClock()
        let start = clock.now
        let idle = await #expect(throws: NetLayerError.self) {
            try await target.makeExecutor(timeout: .milliseconds(200)).execute()
        }
        #expect(idle?.code == .timedOut)
        #expect(idle?.message.contains("idle timeout") == true)
        let total = await #expect(throws: NetLayerError.self) {
            try await target.makeExecutor(resourceTimeout: .milliseconds(200)).execute()
        }
        #expect(total?.code == .timedOut)
        #expect(total?.message.contains("total deadline") == true)
        let elapsed = clock.now - start
        // Far below the 600 s the two delays would take uncut. A timer's wake-up waits for a thread of
        // the cooperative pool, and at the start of a parallel run on a loaded two-core machine every
        // test waits for one: CI's loaded step once took 8.1 s here (bound 5 s: red). What matters is
        // that the delay was cut, so the bound is a tenth of one delay.
        #expect(elapsed >= .milliseconds(400) && elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test func aDelayWithinTheTimeoutArrives() async throws {
        let stub = StubTransport { _ in StubResponse.text("late").delayed(by: .milliseconds(50)) }
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/slow")
        let start = ContinuousClock.now
        let data = try await target.makeExecutor(timeout: .seconds(60)).execute()
        #expect(data == Data("late".utf8))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func cancellingTheTaskEndsADelay() async throws {
        let stub = StubTransport { _ in StubResponse.text("late").delayed(by: .seconds(300)) }
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/slow")
        let start = ContinuousClock.now
        let task = Task { try await target.makeExecutor().execute() }
        _ = await waitUntil { !stub.requests.isEmpty }
        task.cancel()
        let error = await #expect(throws: NetLayerError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        // A tenth of the 300 s delay (see above).
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test func resetForgetsRecordingsButKeepsTheTable() async throws {
        let stub = StubTransport()
        stub.on(nil, "/v1/any", .text("ok"))
        let target = EchoTarget(resource: stubbedAPI(stub), path: "/any")
        _ = try await target.makeExecutor(method: .delete).execute()
        stub.reset()
        #expect(stub.requests.isEmpty)
        _ = try await target.makeExecutor(method: .patch, body: .data(Data("x".utf8))).execute()
        #expect(stub.requests.map(\.method) == ["PATCH"])
        #expect(stub.requests.first?.connectionID == 0)
    }
}

/// Polls `condition` every 5 ms for at most 30 seconds (a loaded two-core machine can hold every
/// test's timers for several); returns whether it held.
func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
