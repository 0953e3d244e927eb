import Foundation
import NetLayer
import Testing

/// The service's error body, as a GitHub-style API sends it with a 404 or a 422.
struct ServiceError: Error, Decodable, Equatable {
    struct FieldError: Decodable, Equatable {
        var field: String
        var code: String
    }
    var message: String
    var errors: [FieldError]?
}

/// A GitHub-style client written the way a newcomer would: bearer token, JSON params, its own
/// error type, typed targets.
final class ServiceAPI: Resource, @unchecked Sendable {
    let pageSize = 2

    init(
        server: TestServer, errorMapping: ErrorMapping? = .decoding(ServiceError.self),
        bodyParams: BodyParamFormat = .json
    ) {
        super.init(
            protocol: .http, domain: server.hostAndPort,
            defaultHeaders: ["Authorization": "Bearer gh-t0ken", "Accept": "application/json"],
            defaultParams: ["locale": "en"],
            options: ResourceOptions(bodyParams: bodyParams, errorMapping: errorMapping))
    }

    func repos(_ path: String) -> RepoTarget { RepoTarget(resource: self, path: path) }
}

/// A typed target: `api` is a `ServiceAPI`, no cast.
final class RepoTarget: ResourceTarget<ServiceAPI>, @unchecked Sendable {
    func firstPage() async throws -> Response<[Int]> {
        try await makeExecutor(params: ["per_page": try api.pageSize]).response(model: [Int].self)
    }

    /// Every page, following `Link: rel="next"` by hand with `makeExecutor(url:)` (what
    /// `items(of:)` does for you, see `PaginationWireTests`).
    func all() -> AsyncThrowingStream<[Int], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var page = try await firstPage()
                    continuation.yield(page.value)
                    while let next = page.link("next") {
                        page = try await makeExecutor(url: next).response(model: [Int].self)
                        continuation.yield(page.value)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A target whose own mapping wins over the resource's.
final class UploadTarget: ResourceTarget<ServiceAPI>, @unchecked Sendable {
    struct UploadFailed: Error, Equatable { var status: Int }
    override var errorMapping: ErrorMapping? {
        ErrorMapping { error in error.statusCode.map { UploadFailed(status: $0) } }
    }
}

final class OtherAPI: Resource, @unchecked Sendable {}

extension WireTests {
    /// Typed targets, error mapping, following `Link` URLs and JSON params by default (issue 9).
    @Suite("A service client")
    struct ServiceClientTests {
        static let server = TestServerPool.make()

        static func failing(_ server: TestServer, status: Int) -> String {
            let path = uniquePath("failing\(status)")
            let body =
                status == 404
                ? #"{"message":"Not Found"}"#
                : #"{"message":"Validation Failed","errors":[{"field":"name","code":"missing"}]}"#
            server.route(path) { _ in .json(body, status: status) }
            return path
        }

        @Test func aTypedTargetReachesItsResourceWithoutACast() throws {
            let api = ServiceAPI(server: try Self.server.get())
            let target = api.repos("/repos")
            #expect(try target.api === api)
            #expect(try target.api.pageSize == 2)
        }

        @Test func aTargetMadeDynamicallyWithAnotherResourceFailsWithATypedError() async throws {
            let server = try Self.server.get()
            let other = OtherAPI(protocol: .http, domain: server.hostAndPort)
            let type: Target.Type = RepoTarget.self
            let target = try #require(
                type.init(resource: other, path: "/x", headers: [:], params: [:]) as? RepoTarget)
            let error = #expect(throws: NetLayerError.self) { try target.api }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("RepoTarget needs a resource of type ServiceAPI") == true)
            let path = uniquePath()
            let callError = await #expect(throws: NetLayerError.self) {
                try await target.makeExecutor(subpath: path).execute()
            }
            #expect(callError?.code == .invalidValue)
            #expect(server.requests(path: "/x" + path).isEmpty)
        }

        @Test(arguments: [404, 422])
        func anUnacceptableResponseIsThrownAsTheServiceError(_ status: Int) async throws {
            let server = try Self.server.get()
            let api = ServiceAPI(server: server)
            let path = Self.failing(server, status: status)
            let expected =
                status == 404
                ? ServiceError(message: "Not Found")
                : ServiceError(message: "Validation Failed", errors: [.init(field: "name", code: "missing")])
            let executor = api.repos(path).makeExecutor(method: .patch, params: ["name": ""])
            await #expect(throws: expected) { try await executor.execute() }
            await #expect(throws: expected) { try await executor.execute(model: Book.self) }
            await #expect(throws: expected) { try await executor.response() }
            await #expect(throws: expected) { try await executor.stream() }
            await #expect(throws: expected) { try await executor.lines() }
            await #expect(throws: expected) { try await executor.events() }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "dx-\(UUID().uuidString)")
            await #expect(throws: expected) { try await executor.download(to: file) }
            #expect(!FileManager.default.fileExists(atPath: file.path))
            // The server got each call; the PATCH carried JSON params (ResourceOptions.bodyParams).
            let received = server.requests(path: path)
            #expect(received.count == 7)
            #expect(received.first?.header("Content-Type") == "application/json")
            #expect(received.first?.bodyString == #"{"locale":"en","name":""}"#)
        }

        @Test func theCompletionHandlerCarriesTheServiceError() async throws {
            let server = try Self.server.get()
            let path = Self.failing(server, status: 404)
            let executor = ServiceAPI(server: server).repos(path).makeExecutor()
            let result: Result<Book, NetLayerError> = await withCheckedContinuation { continuation in
                executor.execute(model: Book.self) { continuation.resume(returning: $0) }
            }
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect(error.code == .unacceptableStatus)
            #expect(error.serviceError as? ServiceError == ServiceError(message: "Not Found"))
        }

        @Test func aTargetsMappingWinsAndABodyThatDoesNotDecodeKeepsTheNetLayerError() async throws {
            let server = try Self.server.get()
            let api = ServiceAPI(server: server)
            let path = Self.failing(server, status: 422)
            await #expect(throws: UploadTarget.UploadFailed(status: 422)) {
                try await UploadTarget(resource: api, path: path).makeExecutor().execute()
            }
            let html = uniquePath()
            server.route(html) { _ in TestResponse(status: 502, body: Data("<html>Bad gateway</html>".utf8)) }
            let error = await #expect(throws: NetLayerError.self) {
                try await api.repos(html).makeExecutor().execute()
            }
            #expect(error?.statusCode == 502)
            // Without a mapping, the NetLayerError as before.
            let plain = await #expect(throws: NetLayerError.self) {
                try await ServiceAPI(server: server, errorMapping: nil).repos(path).makeExecutor().execute()
            }
            #expect(plain?.code == .unacceptableStatus)
        }

        @Test func threePagesAreFollowedByTheirLinkHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                var headers = [("Content-Type", "application/json")]
                if page < 3 {
                    let next = "http://\(server.hostAndPort)\(path)?page=\(page + 1)&per_page=2"
                    headers.append(
                        (
                            "Link",
                            #"<\#(next)>; rel="next", <http://\#(server.hostAndPort)\#(path)?page=3>; rel="last""#
                        ))
                }
                return TestResponse(
                    status: 200, headers: headers, body: Data("[\(page * 2 - 1),\(page * 2)]".utf8))
            }
            var items: [Int] = []
            for try await page in ServiceAPI(server: server).repos(path).all() { items += page }
            #expect(items == [1, 2, 3, 4, 5, 6])
            let received = server.requests(path: path)
            #expect(
                received.map(\.rawQuery) == [
                    "locale=en&per_page=2", "page=2&per_page=2", "page=3&per_page=2",
                ])
            #expect(received.allSatisfy { $0.header("Authorization") == "Bearer gh-t0ken" })
        }

        @Test func aURLOfAnotherOriginIsRefusedBeforeAnythingIsSent() async throws {
            let server = try Self.server.get()
            let api = ServiceAPI(server: server)
            let target = api.repos("/repos")
            for other in [
                "http://localhost:\(server.port)/x", "https://\(server.hostAndPort)/x",
                "http://127.0.0.1:1/x",
                "ftp://\(server.hostAndPort)/x",
            ] {
                let url = try #require(URL(string: other))
                let error = await #expect(throws: NetLayerError.self) {
                    try await target.makeExecutor(url: url).execute()
                }
                #expect(error?.code == .invalidURL && error?.part == "url", "\(other)")
                #expect(error?.message.contains("gh-t0ken") == false)
            }
            let same = uniquePath()
            server.route(same) { _ in .json("[]") }
            let url = try #require(URL(string: "http://\(server.hostAndPort)\(same)#fragment"))
            #expect(try await api.follow(url).execute(model: [Int].self) == [])
            // No query in the URL: the resource's params are added as for any call.
            #expect(server.requests(path: same).map(\.rawQuery) == ["locale=en"])
        }

        @Test(arguments: [
            ("https://api.example.com/repos", ""), ("//api.example.com/repos", ""), ("/repos", "http://h/x"),
            ("/repos", "//h/x"),
        ])
        func anAbsoluteURLAsAPathOrSubpathIsRefused(_ path: String, _ subpath: String) throws {
            let api = ServiceAPI(server: try Self.server.get())
            let error = #expect(throws: NetLayerError.self) {
                try api.repos(path).makeExecutor(subpath: subpath).transportRequest
            }
            #expect(error?.code == .invalidURL)
            #expect(error?.part == (subpath.isEmpty ? "path" : "subpath"))
            #expect(error?.message.contains("makeExecutor(url:)") == true)
        }

        @Test func bodyParamsDefaultsToAFormAndAContentTypeStillDecides() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json("{}") }
            let form = ServiceAPI(server: server, bodyParams: .form)
            try await form.repos(path).makeExecutor(method: .patch, params: ["a": 1]).execute()
            let json = ServiceAPI(server: server, bodyParams: .json)
            try await json.repos(path).makeExecutor(method: .put, params: ["a": 1]).execute()
            try await RepoTarget(
                resource: json, path: path, headers: ["Content-Type": "application/x-www-form-urlencoded"]
            ).makeExecutor(method: .post, params: ["a": 1]).execute()
            try await json.repos(path).makeExecutor(method: .post, params: ["a": 1], placement: .form)
                .execute()
            try await json.repos(path).makeExecutor(method: .delete, params: ["a": 1]).execute()
            let received = server.requests(path: path)
            #expect(
                received.map(\.bodyString) == [
                    "a=1&locale=en", #"{"a":1,"locale":"en"}"#, "a=1&locale=en", "a=1&locale=en", "",
                ])
            #expect(
                received.map { $0.header("Content-Type") ?? "" } == [
                    "application/x-www-form-urlencoded", "application/json",
                    "application/x-www-form-urlencoded",
                    "application/x-www-form-urlencoded", "",
                ])
            #expect(received.last?.rawQuery == "a=1&locale=en")
        }
    }
}
