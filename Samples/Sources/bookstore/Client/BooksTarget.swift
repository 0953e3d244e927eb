import Foundation
import NetLayer

/// `/books` (list, search, create) and `/books/:id` (read, delete).
final class BooksTarget: Target, @unchecked Sendable {
    /// One page of books, optionally only those whose title or author contains `search`.
    func list(page: Int = 1, perPage: Int = 5, search: String? = nil) async throws -> Page<Book> {
        try await makeExecutor(method: .get, params: ["page": page, "per_page": perPage, "search": search])
            .execute(model: Page<Book>.self)
    }

    /// The book with this id; a missing book throws `NetLayerError` with status 404.
    func get(id: Int) async throws -> Book {
        try await makeExecutor(subpath: ":id", pathParts: ["id": id]).execute(model: Book.self)
    }

    /// Creates a book; the response carries the status (201) and the `Location` header as well.
    func create(_ book: NewBook, debug: Bool = false) async throws -> Response<Book> {
        try await makeExecutor(method: .post, body: .json(book)).response(model: Book.self, debug: debug)
    }

    /// Deletes a book; the server answers 204 with no body, which decodes as `Empty`.
    @discardableResult
    func delete(id: Int) async throws -> Response<Empty> {
        try await makeExecutor(method: .delete, subpath: ":id", pathParts: ["id": id]).response(
            model: Empty.self)
    }
}
