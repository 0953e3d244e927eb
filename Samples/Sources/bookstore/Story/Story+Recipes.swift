import Foundation
import Hummingbird
import Logging
import NetLayer
import ServiceLifecycle

/// The recipes of Docs/GettingStarted.md and Docs/Integration.md, run against the embedded service.
extension Story {
    /// The Getting Started client, call by call, each result checked.
    func gettingStarted() async throws -> GettingStarted.BookstoreAPI {
        begin("Docs/GettingStarted.md: the guide's client, call by call")
        Console.info("(after a 1 s pause, so the server's window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        let api = GettingStarted.BookstoreAPI(host: "127.0.0.1:\(server.port)", token: token)
        let walk = GettingStarted.Walkthrough(api: api)

        let (dune, leGuin) = try await walk.firstCalls()
        try expect(dune.title == "Dune" && dune.year == 1965, "get: #1 is \(dune.title) (\(dune.year ?? 0))")
        try expect(
            leGuin.total == 3 && leGuin.totalPages == 1 && leGuin.items.count == 3,
            "list: \(leGuin.total) books by Le Guin on \(leGuin.totalPages) pages")
        Console.ok(
            "GET /books/:id → \(dune.title) (\(dune.year ?? 0)); GET /books?search= → \(leGuin.total) books")

        let (created, patched) = try await walk.writeCalls()
        try expect(created.year == nil && patched.year == 1971, "patch: year \(patched.year ?? 0)")
        try expect(patched.title == created.title, "patch changed the title to \(patched.title)")
        _ = try await expectStatus(404, "get after delete") { try await api.book().get(id: created.id) }
        Console.ok(
            "POST .json → #\(created.id); PATCH params as JSON → year \(patched.year ?? 0); DELETE → Empty; then 404"
        )

        let found = try await walk.title(of: 1)
        let missing = try await walk.title(of: 9_999)
        try expect(found == "Dune" && missing == nil, "title(of:): \(found ?? "nil"), \(missing ?? "nil")")
        Console.ok("switch error.code: a 404 became nil, #1 is \(found ?? "")")

        do {
            let book = try await walk.add(GettingStarted.NewBook(title: "  ", author: "Nobody", year: nil))
            throw StoryFailure(message: "a blank title was accepted as #\(book.id)")
        } catch let rejected as GettingStarted.BookRejected {
            try expect(
                rejected.status == 422 && rejected.reason == "title is required",
                "decodeBody: \(rejected.status) \(rejected.reason)")
            Console.ok("error.decodeBody(as: APIError.self) on a \(rejected.status): \"\(rejected.reason)\"")
        }

        let response = try await walk.inspect()
        try expect(
            response.statusCode == 200 && response.sentRequest.url.path == "/v1/books/1"
                && (response.headerFields["Content-Type"] ?? "").hasPrefix("application/json")
                && response.duration > .zero,
            "response(model:): \(response.statusCode) \(response.sentRequest.url)")
        Console.ok(
            "response(model:): \(response.statusCode), Content-Type, \(response.duration.inMilliseconds), the URL sent"
        )

        let debugged = try await walk.debugOneCall()
        let quick = try await api.book().getQuickly(id: 2)
        try expect(debugged.id == 1 && quick.title == "Foundation", "debug / timeouts: \(quick.title)")
        Console.ok("debug: true printed the exchange above (Authorization redacted); per-call timeouts")

        let shown = await withCheckedContinuation { continuation in
            walk.loadTitle(id: 4) { continuation.resume(returning: $0) }
        }
        let thread = await withCheckedContinuation { continuation in
            api.book().get(id: 5) { result in
                continuation.resume(returning: (isMain: Thread.isMainThread, ok: (try? result.get()) != nil))
            }
        }
        let cancelled = await withCheckedContinuation { continuation in
            let handle = api.book().get(id: 6) { continuation.resume(returning: $0) }
            handle.cancel()
        }
        try expect(shown == "Neuromancer", "completion handler: \(shown)")
        try expect(thread.ok && !thread.isMain, "the completion handler ran on the main thread")
        guard case .failure(let error) = cancelled, error.code == .cancelled else {
            throw StoryFailure(message: "a cancelled CallHandle delivered \(cancelled)")
        }
        Console.ok("completion handler: \(shown), called off the main thread; cancel() → .cancelled")
        try expect(GettingStarted.limits.count == 4, "rate limits")
        record("Getting Started: get, list, post, patch, delete, errors, response, debug, callbacks")
        return api
    }

    /// The `@MainActor` view model of Docs/Integration.md: a load, a search replaced by another,
    /// a cancelled one.
    func mainActorModel(api: GettingStarted.BookstoreAPI) async throws {
        begin("Docs/Integration.md: a @MainActor @Observable view model")
        let model = GettingStarted.BookListModel(api: api)
        await model.load()
        try expect(model.books.count == 5 && model.errorText == nil, "load: \(model.books.count) books")
        Console.ok("load(): \(model.books.count) books, set on the main actor")

        model.search("asimov")
        model.search("le guin")  // cancels the search for "asimov"
        await model.finishSearch()
        try expect(
            model.books.count == 3 && model.books.allSatisfy { $0.author == "Ursula K. Le Guin" }
                && model.errorText == nil,
            "search: \(model.books.map(\.title)), \(model.errorText ?? "")")
        Console.ok(
            "a newer search cancelled the one before: \(model.books.count) books by Le Guin, no error shown")

        model.search("gibson")
        model.cancel()  // the view went away
        await model.finishSearch()
        try expect(
            model.books.count == 3 && model.errorText == nil,
            "cancel: \(model.books.count), \(model.errorText ?? "")")
        Console.ok("cancel() (onDisappear): the books stay as they were, no error shown")
        record("a @MainActor view model loaded, searched (a replaced search cancelled) and cancelled")
    }

    /// The Hummingbird route of Docs/Integration.md, served on 127.0.0.1 and called over HTTP.
    func serverRoute(api: GettingStarted.BookstoreAPI) async throws {
        begin("Docs/Integration.md: a Hummingbird route that calls the bookstore through NetLayer")
        let router = Router()
        GettingStarted.ShelfRoutes(bookstore: api).register(on: router)
        let stale = GettingStarted.BookstoreAPI(host: "127.0.0.1:\(server.port)", token: "expired")
        router.get("stale/:id", use: GettingStarted.ShelfRoutes(bookstore: stale).show)
        let gateway = try await LocalServer.start(router: router)  // (a failed step ends the process)

        let shelf = Target(
            resource: Resource(protocol: .http, domain: "127.0.0.1:\(gateway.port)"), path: "/")
        let item = try await shelf.makeExecutor(subpath: "shelf/:id", pathParts: ["id": 1])
            .execute(model: GettingStarted.ShelfItem.self)
        try expect(item.label == "Dune (1965) by Frank Herbert", "shelf: \(item.label)")
        Console.ok("GET /shelf/1 → \(item.label)")

        let notFound = try await expectStatus(404, "shelf of a missing book") {
            try await shelf.makeExecutor(subpath: "shelf/:id", pathParts: ["id": 9_999]).execute()
        }
        let badGateway = try await expectStatus(502, "shelf with a stale upstream token") {
            try await shelf.makeExecutor(subpath: "stale/:id", pathParts: ["id": 1]).execute()
        }
        try expect(
            notFound.bodyPreview()?.contains("no such book") == true
                && badGateway.bodyPreview()?.contains("the bookstore failed") == true,
            "gateway bodies: \(notFound.bodyPreview() ?? "") / \(badGateway.bodyPreview() ?? "")")
        Console.ok("the upstream's 404 → 404, its 401 (our stale token) → 502 Bad Gateway")
        await gateway.stop()
        record("a Hummingbird route called the bookstore through NetLayer and mapped its errors")
    }
}

extension Story {
    /// The client of Docs/Migration.md, as it reads after the move from swift-net-layer.
    func migratedClient() async throws {
        begin("Docs/Migration.md: the migrated client (pathParts, response(model:), files:, a callback)")
        Console.info("(after a 1 s pause: this resource has a limiter of its own)")
        try await Task.sleep(for: .seconds(1))
        let api = GettingStarted.Migration.BookstoreAPI(host: "127.0.0.1:\(server.port)", token: token)
        let book = try await api.book().get(id: 2)
        let (same, status) = try await api.book().getWithResponse(id: 2)
        let title = await withCheckedContinuation { continuation in
            api.book().title(id: 3) { continuation.resume(returning: $0) }
        }
        let receipt = try await api.cover().upload(bookID: 2, png: Self.coverPNG, caption: "migrated")
        try expect(
            book.title == "Foundation" && same.id == 2 && status == 200 && title == "I, Robot",
            "migrated reads: \(book.title), \(status), \(title ?? "nil")")
        try expect(
            receipt.bytes == Self.coverPNG.count && receipt.caption == "migrated",
            "migrated upload: \(receipt.bytes) bytes, caption \(receipt.caption)")
        Console.ok(
            "#2 \(book.title) (status \(status)), #3 \(title ?? "") by callback, a \(receipt.bytes)-byte cover via FilePart.data"
        )
        record("the migrated client read, called back and uploaded a cover with files:")
    }
}

/// A Hummingbird application on 127.0.0.1 at a port the system picks, stopped with `stop()`.
struct LocalServer: Sendable {
    let port: Int
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    static func start(router: Router<BasicRequestContext>) async throws -> LocalServer {
        var logger = Logger(label: "recipe-server")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await services.run()
        }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            await services.triggerGracefulShutdown()
            try await task.value
            throw StoryFailure(message: "the recipe server did not start")
        }
        return LocalServer(port: port, services: services, task: task)
    }

    func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }
}
