import Foundation
import NetLayer

extension Story {
    /// A 422 for a book without a title, then a real one from a `Codable` value with `.json(…)`.
    func createBook() async throws -> Book {
        let books = api.books()

        begin("Create a book without a title (the server refuses it)")
        let refused = try await expectStatus(422, "create without title") {
            try await books.create(NewBook(title: "  ", author: "Nobody", year: nil))
        }
        Console.ok("422: \(refused.apiError?.message ?? refused.bodyPreview() ?? "")")

        begin("Create a book from a Codable value (debug: true on this call)")
        let new = NewBook(title: "The Word for World Is Forest", author: "Ursula K. Le Guin", year: 1972)
        let response = try await books.create(new, debug: true)
        let book = response.value
        let location = response.headerFields["Location"]
        try expect(response.statusCode == 201, "create: expected 201, got \(response.statusCode)")
        try expect(
            book.title == new.title && book.author == new.author,
            "create: the book came back as \(book.title) by \(book.author)")
        try expect(location == "/v1/books/\(book.id)", "create: Location is \(location ?? "missing")")
        Console.ok("201 Created #\(book.id) \(book.title), Location: \(location ?? "")")
        record("created #\(book.id) \(book.title) (and saw a 422 for a blank title)")
        return book
    }

    /// A multipart upload of a file on disk with a text field; the temporary file is removed after.
    func uploadCover(for book: Book) async throws {
        begin("Upload a cover for #\(book.id): multipart file part + caption field (debug: true)")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-sample-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("cover.png")
        try Self.coverPNG.write(to: file)
        defer { try? FileManager.default.removeItem(at: directory) }

        let caption = "First edition cover, 1972"
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
        let cover = try await api.covers().upload(bookID: book.id, file: file, caption: caption, debug: true)
        try FileManager.default.removeItem(at: directory)

        try expect(cover.bookId == book.id, "cover: stored for book \(cover.bookId), not \(book.id)")
        try expect(
            cover.bytes == size, "cover: the server stored \(cover.bytes) bytes of a \(size ?? -1)-byte file")
        try expect(
            cover.filename == "cover.png" && cover.contentType == "image/png",
            "cover: stored as \(cover.filename) (\(cover.contentType))")
        try expect(cover.caption == caption, "cover: caption came back as \(cover.caption.debugDescription)")
        try expect(
            !FileManager.default.fileExists(atPath: file.path), "cover: the temporary file is still there")
        Console.ok(
            "stored \(cover.filename) (\(cover.contentType), \(cover.bytes) bytes) captioned \"\(cover.caption)\"; temp file removed"
        )
        record("uploaded a \(cover.bytes)-byte cover.png with a caption")
    }

    /// A 204 delete, then the 404 the same book now answers, as a `NetLayerError`.
    func deleteBook(_ book: Book) async throws {
        let books = api.books()

        begin("Delete #\(book.id), then try to get it again")
        let deleted = try await books.delete(id: book.id)
        try expect(deleted.statusCode == 204, "delete: expected 204, got \(deleted.statusCode)")
        Console.ok("204 No Content")
        do {
            let ghost = try await books.get(id: book.id)
            throw StoryFailure(message: "get after delete: #\(ghost.id) \(ghost.title) is still there")
        } catch let error as NetLayerError where error.code == .unacceptableStatus && error.statusCode == 404
        {
            Console.ok("NetLayerError: \(error)")
            Console.info(
                "code: .\(error.code), status: \(error.statusCode ?? 0), body: \(error.bodyPreview() ?? "(none)")"
            )
            try expect(error.apiError?.error == "not_found", "404 body is not the service's JSON error")
        }
        record("deleted #\(book.id) (204); getting it again threw .unacceptableStatus 404")
    }

    /// A 16×16 gradient PNG (124 bytes).
    static let coverPNG = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAQ0lEQVR42mNgYGAQEBBQUFAwMDBwcHAICAhISEgoKChoaGiYMGHCggULNmzYcODAgQsXLjx48ODDhw8MoxpGNQxfDQBupWgQanZnuwAAAABJRU5ErkJggg=="
    )!
}
