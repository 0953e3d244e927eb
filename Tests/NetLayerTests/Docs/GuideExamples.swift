import Foundation
import NetLayer

/// The code of Docs/Guide.md, compiled here so the guide cannot rot (``DocsExamplesTests`` checks
/// that every ```swift block of the guide appears in this file, line for line). Nested in an enum
/// so the guide can use plain names.
enum GuideExamples {
    struct Book: Decodable, Sendable { var id: Int; var title: String }
    struct Cover: Decodable, Sendable { var url: String }
    struct Repo: Decodable, Sendable { var name: String }
    struct FieldError: Decodable, Sendable { var field: String; var code: String }

    // MARK: Describe a service

    final class BookstoreAPI: Resource, @unchecked Sendable {
        static let shared = BookstoreAPI(token: "…")

        init(token: String) {
            super.init(
                protocol: .https,
                domain: "api.example.com",          // may carry a port or base path
                version: "v1",                      // optional
                defaultHeaders: ["Authorization": "Bearer \(token)", "Accept": "application/json"],
                defaultParams: ["locale": "en"],
                rateLimits: [RateLimit(requests: 5, per: .seconds(1))],
                options: ResourceOptions {
                    $0.timeout = .seconds(15)
                    $0.resourceTimeout = .seconds(60)
                }
            )
        }

        func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }
        func book() -> BookTarget { BookTarget(resource: self, path: "/books/:id") }
    }

    final class BooksTarget: Target, @unchecked Sendable {
        func list(page: Int, search: String? = nil) async throws -> [Book] {
            try await makeExecutor(params: ["page": page, "search": search]).execute(model: [Book].self)
        }

        func cover(id: Int, file: URL) async throws -> Cover {
            try await makeExecutor(method: .post, subpath: ":id/cover", pathParts: ["id": id],
                                   files: ["cover": .file(file)]).execute(model: Cover.self)
        }
    }

    final class BookTarget: Target, @unchecked Sendable {
        func get(id: Int) async throws -> Book {
            try await makeExecutor(pathParts: ["id": id]).execute(model: Book.self)
        }
    }

    // MARK: Values

    enum Sort: String, ParamConvertible { case newest, title }

    static func search(_ books: BooksTarget, tags: Set<String>) async throws -> [Book] {
        try await books.makeExecutor(params: [
            "sort": Sort.newest,                                      // a String-backed enum
            "tags": tags,                                             // a Set, sent sorted
            "filter": ["year": 1965, "title": "Dune"] as ParamValue,  // mixed literals
        ]).execute()
    }

    // MARK: Decoding responses

    static func decoding(_ books: BooksTarget) async throws {
        let all: [Book] = try await books.makeExecutor().execute()           // the model from the context
        let items = try await books.makeExecutor(subpath: "page")
            .execute(model: [Book].self, at: "data.items")                   // inside {"data":{"items":[…]}}
        let json: JSONValue = try await books.makeExecutor(subpath: "page").execute()
        print(all.count, items.count, json["data"]?["total"]?.intValue ?? 0)
    }

    static func validation() -> ResourceOptions {
        let lenient = ResourceOptions { $0.validation = Validation(acceptableStatusCodes: 200..<400) }
        return lenient
    }

    // MARK: Resource options

    static func tunedOptions(log: LogSink) -> ResourceOptions {
        ResourceOptions {
            $0.retryPolicy = .exponential(statusCodes: [502, 503])
            $0.timeout = .seconds(15)
            $0.debug = true
            $0.log = log
        }
    }

    // MARK: Typed targets and the service's errors

    struct GitHubError: Error, Decodable { var message: String; var errors: [FieldError]? }

    final class GitHubAPI: Resource, @unchecked Sendable {
        let pageSize = 50

        init(token: String) {
            super.init(protocol: .https, domain: "api.github.com",
                       defaultHeaders: ["Authorization": "Bearer \(token)"],
                       options: ResourceOptions {
                           $0.bodyParams = .json
                           $0.errorMapping = .decoding(GitHubError.self)
                       })
        }

        func repos() -> ReposTarget { ReposTarget(resource: self, path: "/orgs") }
    }

    final class ReposTarget: ResourceTarget<GitHubAPI>, @unchecked Sendable {
        func list(org: String) async throws -> [Repo] {
            try await makeExecutor(subpath: ":org/repos", pathParts: ["org": org],
                                   params: ["per_page": try api.pageSize]).execute()
        }
    }

    static func describe(_ repos: ReposTarget, name: String, text: String) async throws {
        do {
            try await repos.makeExecutor(method: .patch, subpath: ":repo", pathParts: ["repo": name],
                                         params: ["description": text]).execute()
        } catch let error as GitHubError {          // a 404 or 422 with the service's JSON
            print(error.message, error.errors ?? [])
        }
    }

    // MARK: Errors

    static func show(_ api: BookstoreAPI) async throws -> Book? {
        do {
            return try await api.book().get(id: 7)
        } catch let error as NetLayerError where error.code == .unacceptableStatus {
            print(error.statusCode ?? 0, error.bodyPreview() ?? "")
            return nil
        } catch let error as NetLayerError where error.code == .timedOut {
            print("try again later:", error.message)
            return nil
        }
    }

    // MARK: Pagination

    static func printAll(_ api: GitHubAPI) async throws {
        for try await repo in api.repos().all(org: "swiftlang") { print(repo.name) }
    }

    static func printPages(_ repos: ReposTarget, search: ReposTarget) async throws -> LinkedItems<Repo> {
        let pages = repos.makeExecutor(params: ["per_page": 100]).pages(model: [Repo].self)
        for try await page in pages {
            print(page.number, page.value.count, page.response.headerFields["X-RateLimit-Remaining"] ?? "-")
        }
        let found = search.makeExecutor(params: ["q": "swift"]).items(of: Repo.self, at: "items")
        return found
    }

    // MARK: Redirects

    static func redirects(_ target: BooksTarget) async throws {
        let options = ResourceOptions { $0.redirects = RedirectPolicy(maximum: 5) }
        let executor = target.makeExecutor(redirects: .doNotFollow)   // the 3xx itself is the result
        let response = try await target.makeExecutor().response()
        print(response.url?.absoluteString ?? "-", response.redirects.map(\.statusCode))
        _ = (options, executor)
    }

    // MARK: Cookies

    final class ShopAPI: Resource, @unchecked Sendable {
        let cookies: CookieJar

        init(cookies: CookieJar = CookieJar()) {
            self.cookies = cookies
            super.init(protocol: .https, domain: "shop.example.com",
                       options: ResourceOptions { $0.cookieJar = cookies })
        }

        func signIn(user: String, password: String) async throws {
            // The session cookie the answer sets goes with every later call, redirects included.
            try await Target(resource: self, path: "/login")
                .makeExecutor(method: .post, params: ["user": user, "password": password]).execute()
            print(cookies.all.map(\.name))                        // ["session"]
        }

        func signOut() { cookies.remove(domain: "shop.example.com") }
    }
}

// The guide's paging recipe extends `ReposTarget` by its plain name (no other test declares it).
typealias ReposTarget = GuideExamples.ReposTarget
typealias Repo = GuideExamples.Repo

extension ReposTarget {
    func all(org: String) -> LinkedItems<Repo> {
        makeExecutor(subpath: ":org/repos", pathParts: ["org": org], params: ["per_page": 100])
            .items(of: Repo.self)
    }
}
