import Foundation
import Hummingbird

/// `/v1/books` and `/v1/books/:id` (read, change, delete).
struct BookRoutes {
    let store: BookStore

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("books", use: list)
        group.post("books", use: create)
        group.get("books/:id", use: show)
        group.patch("books/:id", use: update)
        group.delete("books/:id", use: delete)
    }

    /// `GET /v1/books?page=1&per_page=5&search=le+guin`.
    @Sendable func list(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = try Self.integer(query["page"], name: "page", default: 1, range: 1...10_000)
        let perPage = try Self.integer(query["per_page"], name: "per_page", default: 5, range: 1...50)
        let search = query["search"].map(String.init)
        return try JSONResponse.make(await store.page(page, perPage: perPage, search: search))
    }

    /// `GET /v1/books/:id`.
    @Sendable func show(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try Self.bookID(context)
        guard let book = await store.book(id) else { throw APIError.notFound("no book with id \(id)") }
        return try JSONResponse.make(book)
    }

    /// `POST /v1/books` with a JSON body; 422 when the title is missing or blank.
    @Sendable func create(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw APIError.unsupportedMediaType("send the book as application/json")
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let payload: NewBookPayload
        do {
            payload = try WireJSON.decoder.decode(NewBookPayload.self, from: Data(body.readableBytesView))
        } catch {
            throw APIError.badRequest("the body is not a JSON book object")
        }
        let title = payload.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !title.isEmpty else { throw APIError.unprocessable("title is required") }
        let author = payload.author?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let book = await store.create(
            title: title, author: author.isEmpty ? "Unknown" : author, year: payload.year)
        var response = try JSONResponse.make(book, status: .created)
        response.headers[.location] = "/v1/books/\(book.id)"
        return response
    }

    /// `PATCH /v1/books/:id` with a JSON object of the fields to change (`title`, `author`, `year`);
    /// 415 for any other body type, 404 when there is no such book, 422 for a blank title.
    @Sendable func update(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try Self.bookID(context)
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw APIError.unsupportedMediaType("send the changes as application/json")
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let changes: NewBookPayload
        do {
            changes = try WireJSON.decoder.decode(NewBookPayload.self, from: Data(body.readableBytesView))
        } catch {
            throw APIError.badRequest("the body is not a JSON object of book fields")
        }
        let title = changes.title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.isEmpty { throw APIError.unprocessable("title cannot be blank") }
        guard let book = await store.update(id, title: title, author: changes.author, year: changes.year)
        else {
            throw APIError.notFound("no book with id \(id)")
        }
        return try JSONResponse.make(book)
    }

    /// `DELETE /v1/books/:id`: 204, or 404 when there is no such book.
    @Sendable func delete(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try Self.bookID(context)
        guard await store.delete(id) else { throw APIError.notFound("no book with id \(id)") }
        return Response(status: .noContent)
    }

    static func bookID(_ context: BasicRequestContext) throws -> Int {
        guard let id = context.parameters.get("id", as: Int.self) else {
            throw APIError.badRequest("the book id must be an integer")
        }
        return id
    }

    private static func integer(_ text: Substring?, name: String, default value: Int, range: ClosedRange<Int>)
        throws -> Int
    {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError.badRequest(
                "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}
