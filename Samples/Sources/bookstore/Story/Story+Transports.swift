import BookstoreServer
import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Story {
    /// The same client over custom transports: a stub that answers from memory, behind a decorator
    /// that stamps each request; and an old-style transport behind the adapter. Nothing goes to the
    /// server.
    func customTransport() async throws {
        begin("Custom transports (v2): the client offline, over a stub, a decorator and a legacy adapter")
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cover.png")
        try Self.writePseudoRandomFile(file, bytes: 600 * 1024)

        let feed = Data(
            """
            {"id":1,"title":"Dune","author":"Frank Herbert"}
            {"id":2,"title":"Foundation","author":"Isaac Asimov"}

            """.utf8)
        let stub = StubTransport { request, body in
            switch (request.method, request.url.path) {
            case (.get, "/v1/feed"):
                // Two chunks that split the second line: lines() joins it again.
                return .init(
                    headers: [("Content-Type", "application/x-ndjson")],
                    chunks: [feed.prefix(60), feed.dropFirst(60)])
            case (.put, "/v1/books/7/cover"):
                let cover = """
                    {"book_id":7,"filename":"cover.png","content_type":"image/png","bytes":\(body.count),\
                    "checksum":"\(Checksum.of(body))","caption":""}
                    """
                return .init(status: 201, chunks: [Data(cover.utf8)])
            case (.post, "/v1/books"):
                // Echoes the decorator's header, so the caller can see it was sent.
                return .init(
                    status: 201, headers: [("X-Request-ID", request.headerFields["X-Request-ID"] ?? "")],
                    chunks: [Data(#"{"id":99,"title":"Offline","author":"Stub"}"#.utf8)])
            default:
                return .init(status: 404, chunks: [Data(#"{"error":"not_found","message":"offline"}"#.utf8)])
            }
        }
        let offline = BookstoreAPI(
            port: 1, token: "offline", rateLimits: [], transport: RequestIDTransport(wrapped: stub))

        let books = try await offline.feed().books()
        try expect(books.map(\.title) == ["Dune", "Foundation"], "stub feed: \(books.map(\.title))")
        Console.ok(
            "feed: \(books.count) books decoded from two chunks that split a line (ResponseBody(chunks:))")

        let cover = try await offline.covers().replace(bookID: 7, file: file)
        try expect(
            cover.bytes == 600 * 1024 && cover.checksum == (try Checksum.of(file: file)),
            "stub cover: \(cover.bytes) bytes, \(cover.checksum)")
        Console.ok("PUT .file: the stub read all \(cover.bytes) bytes through RequestBody.chunks()")

        let created = try await offline.books().create(NewBook(title: "Offline", author: "Stub", year: nil))
        let requestID = created.headerFields["X-Request-ID"] ?? ""
        try expect(
            created.statusCode == 201 && created.value.id == 99 && UUID(uuidString: requestID) != nil,
            "stub create: \(created.statusCode) #\(created.value.id), X-Request-ID \(requestID)")
        Console.ok(
            "POST: 201 #\(created.value.id), X-Request-ID \(requestID.prefix(8))… added by the decorator")

        // A transport written for the first protocol, kept working behind the adapter.
        let legacy = LegacyTransportAdapter { request, _ in
            let book = #"{"id":1,"title":"Dune","author":"Frank Herbert"}"#
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"])!
            return (Data(book.utf8), response)
        }
        let old = try await BookstoreAPI(port: 1, token: "offline", rateLimits: [], transport: legacy)
            .books().get(id: 1)
        try expect(old.title == "Dune", "legacy adapter: got \(old.title)")
        Console.ok(
            "an old-style transport (URLRequest in, Data out) behind LegacyTransportAdapter: #1 \(old.title)")

        let missing = try await expectStatus(404, "stub 404") { try await offline.books().get(id: 1) }
        try expect(missing.apiError?.message == "offline", "stub 404: \(missing)")
        Console.ok("a 404 from the stub is validated like any other: NetLayerError .unacceptableStatus")
        record("ran the client offline over custom transports (stub, decorator, legacy adapter)")
    }
}

extension Story {
    /// Docs/Transports.md's recipes against the service: a transport that owns its AsyncHTTPClient,
    /// and one that borrows the app's.
    func asyncHTTPClientRecipes() async throws {
        begin("Docs/Transports.md: the same service over AsyncHTTPClient, owned and shared")
        Console.info("(after a 1 s pause, so the server's window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        let host = "127.0.0.1:\(server.port)"
        let owned = try await TransportRecipes.ownTransport(host: host, token: token)
        let shared = try await TransportRecipes.sharedClient(host: host, token: token)
        try expect(owned.title == "Dune" && shared.title == "Dune", "got \(owned.title), \(shared.title)")
        let configuration = try TransportRecipes.pinnedConfiguration(privateRootPEM: Self.samplePrivateRoot)
        try expect(configuration.pinnedKeys["api.example.com"].count == 2, "two pins for api.example.com")
        Console.ok("GET /books/1 → \(owned.title) over a transport's own client and over the app's client")
        Console.ok("a configuration with a private root and two pinned keys (current and backup) for api.example.com")
    }

    /// A self-signed certificate for the pinned-configuration recipe (never used to connect).
    static let samplePrivateRoot = """
        -----BEGIN CERTIFICATE-----
        MIIBjzCCATWgAwIBAgIUJ6pP6rd18HwG78Q89oORy0mr/3cwCgYIKoZIzj0EAwIw
        HTEbMBkGA1UEAwwSTmV0TGF5ZXIgU2FtcGxlIENBMB4XDTI2MTEyNzIxMjc1MloX
        DTM2MTEyNDIxMjc1MlowHTEbMBkGA1UEAwwSTmV0TGF5ZXIgU2FtcGxlIENBMFkw
        EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE7LrgUr2k2Fw4q8ZSGF+lyRuX6MU349rZ
        6F51mJxy+LGqWXGkN4NqXza69f5uu2AiFCF9/FMEGuCWTWMd5Z9gr6NTMFEwHQYD
        VR0OBBYEFB6jqXPyKm0sbUb0qAam3DmLZW1OMB8GA1UdIwQYMBaAFB6jqXPyKm0s
        bUb0qAam3DmLZW1OMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIg
        YlL/WVb9dDVnrg92UBMQgrOinpUwbeBaDiOofwBKn2oCIQDMFzk5i17a5DuI/wh7
        uHdMNLgMcOMcKlJLRm6QRLFwRA==
        -----END CERTIFICATE-----
        """
}
