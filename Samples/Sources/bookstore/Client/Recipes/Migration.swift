import Foundation
import NetLayer

// Docs/Migration.md: a client as it reads after moving from swift-net-layer. The story runs it
// against the embedded service (Story+Recipes.swift).

extension GettingStarted {
    enum Migration {
        final class BookstoreAPI: Resource, @unchecked Sendable {
            init(host: String, token: String) {
                super.init(
                    protocol: .http,
                    domain: host,
                    version: "v1",
                    defaultHeaders: ["Authorization": "Bearer \(token)"],
                    defaultParams: [:],
                    rateLimits: [RateLimit(requests: 5, per: .seconds(1))]
                )
            }

            func book() -> BookTarget { BookTarget(resource: self, path: "/books/:id") }
            func cover() -> CoverTarget { CoverTarget(resource: self, path: "/books/:id/cover") }
        }

        struct Receipt: Decodable, Sendable {
            let bytes: Int
            let caption: String
        }

        final class BookTarget: Target, @unchecked Sendable {
            func get(id: Int) async throws -> Book {
                try await makeExecutor(method: .get, pathParts: ["id": id]).execute(model: Book.self)
            }

            /// Was `execute(model:)` returning `(Book, URLResponse)`.
            func getWithResponse(id: Int) async throws -> (Book, Int) {
                let response = try await makeExecutor(pathParts: ["id": id]).response(model: Book.self)
                return (response.value, response.statusCode)
            }

            /// Was `execute(model:) { model, response, error in … }` or `waitExecute`.
            @discardableResult
            func title(id: Int, completion: @escaping @Sendable (String?) -> Void) -> CallHandle {
                makeExecutor(pathParts: ["id": id]).execute(model: Book.self) { result in
                    completion(try? result.get().title)
                }
            }
        }

        final class CoverTarget: Target, @unchecked Sendable {
            /// Was `multipart: true` with `SNLFile(data:fileName:mimeType:)` and
            /// `timeoutIntervalForRequest: 30`.
            func upload(bookID: Int, png: Data, caption: String) async throws -> Receipt {
                try await makeExecutor(
                    method: .post,
                    pathParts: ["id": bookID],
                    headers: ["X-Client": "migrated"],
                    params: ["caption": caption],
                    files: ["cover": .data(png, filename: "cover.png", contentType: "image/png")],
                    timeout: .seconds(30),
                    resourceTimeout: .seconds(60)
                ).execute(model: Receipt.self)
            }
        }
    }
}
