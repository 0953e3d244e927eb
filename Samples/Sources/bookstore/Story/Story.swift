import BookstoreServer
import Foundation
import NetLayer

/// The user story the sample tells, one numbered step at a time. Every step checks what came back
/// and throws ``StoryFailure`` on a mismatch.
@MainActor
final class Story {
    let server: BookstoreServer
    let token: String
    /// The client an app would keep: rate-limited to the service's 5 requests per second.
    let api: BookstoreAPI
    private var stepNumber = 0
    private var stepTitle = ""
    /// One line per step, printed at the end.
    private(set) var summary: [String] = []

    /// - Parameter transport: The main client's transport; `nil`: URLSession.
    init(server: BookstoreServer, token: String, verbose: Bool, transport: (any Transport)? = nil) {
        self.server = server
        self.token = token
        self.api = BookstoreAPI(port: server.port, token: token, transport: transport, debug: verbose)
    }

    func run() async throws {
        chapter("Reading", "a Resource for the service, a Target per API section, models decoded")
        try await quickStart()
        try await browse()

        chapter("Writing and uploading", "JSON bodies, multipart files, progress, byte ranges")
        let book = try await createBook()
        try await uploadCover(for: book)
        try await uploadLargeCover(for: book)

        chapter("Downloading", "to a file, resumed after a cut, or read as it arrives")
        let export = try await downloadExport()
        try await resumeExport(export)
        try await streamExport(export)
        try await readFeed()

        chapter("Server-Sent Events", "an answer token by token, errors, a live feed that reconnects")
        try await streamChat(mentioning: book)
        try await stopChatEarly()
        try await streamErrors()
        try await followLiveFeed()
        try await readFeedDecoded()

        chapter("Transports", "the same client over AsyncHTTPClient, and offline over a stub")
        try await asyncHTTPClientRecipes()
        try await customTransport()

        chapter("Errors", "what a failed call tells you")
        try await deleteBook(book)
        try await wrongToken()

        chapter("Caching", "a private HTTP cache: revalidation and stale-if-error")
        try await caching()

        chapter("Rate limits", "a burst against the server's 5 requests per second")
        try await burstWithoutLimiter()
        try await burstWithLimiter()

        chapter("Resilience", "expiring tokens, retries, idempotent POSTs, validation")
        try await resilience()

        chapter(
            "The guides' clients", "Docs/GettingStarted.md, Integration.md and Migration.md, run as written")
        let guideAPI = try await gettingStarted()
        try await mainActorModel(api: guideAPI)
        try await serverRoute(api: guideAPI)
        try await migratedClient()
    }

    /// Starts a chapter of the story: one feature, read in one screen.
    func chapter(_ title: String, _ subtitle: String) {
        Console.chapter(title, subtitle)
    }

    func begin(_ title: String) {
        stepNumber += 1
        stepTitle = title
        Console.step(stepNumber, title)
    }

    /// The step running now, for failure messages: `step 6 (Create a book …)`.
    var currentStep: String { "step \(stepNumber) (\(stepTitle))" }

    func record(_ line: String) {
        summary.append(line)
    }

    // MARK: Reading

    /// The README's quick-start snippet, compiled and run as written.
    func quickStart() async throws {
        begin("Quick start (the README snippet): Bookstore(…).book().get(id: 1)")
        let book = try await Bookstore(domain: "127.0.0.1:\(server.port)", token: token).book().get(id: 1)
        try expect(
            book.id == 1 && book.title == "Dune",
            "quick start: expected #1 Dune, got #\(book.id) \(book.title)")
        Console.ok("#\(book.id) \(book.title) by \(book.author)")
        record("quick start fetched #1 \(book.title)")
        // `Bookstore` is a separate resource with no limiter of its own. Let the server's one-second
        // window pass before `api`, which only counts its own requests, starts.
        try await Task.sleep(for: .seconds(1))
    }

    /// Pages, search and a single book.
    func browse() async throws {
        let books = api.books()

        begin("List books, page 1 and page 2 (5 per page)")
        let first = try await books.list(page: 1)
        let second = try await books.list(page: 2)
        for page in [first, second] {
            Console.info(
                "page \(page.page)/\(page.totalPages): "
                    + page.items.map { "#\($0.id) \($0.title)" }.joined(separator: ", "))
        }
        try expect(
            first.total == 12 && first.totalPages == 3,
            "expected 12 books on 3 pages, got \(first.total) on \(first.totalPages)")
        try expect(first.items.count == 5 && second.items.count == 5, "expected 5 books per page")
        try expect(
            Set(first.items.map(\.id)).isDisjoint(with: second.items.map(\.id)) && second.page == 2,
            "page 2 repeats books of page 1")
        Console.ok("\(first.total) books on \(first.totalPages) pages, no book on both pages")

        begin("Search \"le guin\" (title or author, any case)")
        let found = try await books.list(search: "le guin")
        Console.info(found.items.map { "#\($0.id) \($0.title) (\($0.author))" }.joined(separator: ", "))
        try expect(found.total == 3, "expected 3 books by Ursula K. Le Guin, got \(found.total)")
        try expect(
            found.items.allSatisfy { $0.author.contains("Le Guin") }, "search returned a book not by Le Guin")
        Console.ok("3 matches, all by Ursula K. Le Guin")

        begin("Get book #4")
        let book = try await books.get(id: 4)
        try expect(book.title == "Neuromancer", "expected #4 Neuromancer, got \(book.title)")
        Console.ok("#\(book.id) \(book.title) by \(book.author)")
        record("listed 2 pages of \(first.total) books, searched (\(found.total) hits), fetched #\(book.id)")
    }
}
