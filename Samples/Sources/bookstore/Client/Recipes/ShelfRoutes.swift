import Hummingbird
import NetLayer

// Docs/Integration.md, "From a server": a Hummingbird 2 route that answers from another service
// through NetLayer. The story serves it on 127.0.0.1 and calls it (Story+Recipes.swift).

extension GettingStarted {
    /// What the route answers: `{"id":1,"label":"Dune (1965) by Frank Herbert"}`.
    struct ShelfItem: ResponseCodable {
        let id: Int
        let label: String
    }

    /// `GET /shelf/:id`: one book of the upstream bookstore, relabelled.
    struct ShelfRoutes: Sendable {
        let bookstore: BookstoreAPI  // one resource for the whole server: one session, one limiter

        func register(on router: Router<BasicRequestContext>) {
            router.get("shelf/:id", use: show)
        }

        @Sendable func show(_ request: Request, context: BasicRequestContext) async throws -> ShelfItem {
            let id = try context.parameters.require("id", as: Int.self)
            do {
                let book = try await bookstore.book().get(id: id)
                let year = book.year.map { " (\($0))" } ?? ""
                return ShelfItem(id: book.id, label: "\(book.title)\(year) by \(book.author)")
            } catch let error as NetLayerError {
                throw HTTPError(error)
            }
        }
    }
}

extension HTTPError {
    /// What this server answers when a call to another service failed.
    init(_ upstream: NetLayerError) {
        switch upstream.code {
        case .unacceptableStatus where upstream.statusCode == 404:
            self.init(.notFound, message: "no such book")
        case .unacceptableStatus where upstream.statusCode == 429:
            // The upstream's Retry-After, passed on to our own caller.
            var headers = HTTPFields()
            headers[.retryAfter] = upstream.header("Retry-After") ?? "1"
            self.init(.serviceUnavailable, headers: headers, message: "the bookstore is busy")
        case .timedOut:
            self.init(.gatewayTimeout, message: "the bookstore did not answer in time")
        case .unacceptableStatus, .transport, .decodingFailed:
            self.init(.badGateway, message: "the bookstore failed")  // its 401, 500, HTML page, …
        default:
            self.init(.internalServerError)  // our own mistake (a path part, a header, a cancelled call)
        }
    }
}
