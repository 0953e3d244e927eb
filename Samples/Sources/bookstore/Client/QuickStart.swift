import NetLayer

struct Book: Decodable, Sendable {
    let id: Int
    let title: String
    let author: String
}

final class Bookstore: Resource, @unchecked Sendable {
    init(domain: String, token: String) {
        super.init(
            protocol: .http, domain: domain, version: "v1",
            defaultHeaders: ["Authorization": "Bearer \(token)"])
    }

    func book() -> BookTarget { BookTarget(resource: self, path: "/books/:id") }
}

final class BookTarget: Target, @unchecked Sendable {
    func get(id: Int) async throws -> Book {
        try await makeExecutor(pathParts: ["id": id]).execute(model: Book.self)
    }
}

// let book = try await Bookstore(domain: "127.0.0.1:8080", token: "secret").book().get(id: 1)
