import Foundation
import NetLayer

// Issue 7: credentials added by authenticators, a refresh after a real 401, retries of real 5xx
// answers, content-type validation and interceptors, each judged by what httpbin parsed or sent.

/// httpbin with resilience options.
final class ResilientHttpbin: Resource, @unchecked Sendable {
    init(address: String, options: ResourceOptions) {
        super.init(protocol: .http, domain: address, options: options)
    }

    func at(_ path: String) -> Echo { Echo(resource: self, path: path) }
}

/// No credentials until the first refresh, then a bearer token: httpbin's `/bearer` answers 401
/// without one, so the first attempt is a real rejection.
private struct LateBearer: Authenticator {
    let token = Box()

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        var current: String? { lock.withLock { value } }
        func set(_ text: String) { lock.withLock { value = text } }
    }

    func authenticate(_ request: inout TransportRequest) async throws {
        if let current = token.current {
            try request.headerFields.setValue("Bearer \(current)", for: "Authorization")
        }
    }

    func refresh() async throws { token.set("fresh-token-1") }
}

/// Adds the attempt number to every attempt (httpbin hides `X-Request-Id`, so another name).
private struct AttemptHeader: Interceptor {
    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        var request = request
        try request.headerFields.setValue("attempt-\(context.attempt)", for: "X-Attempt")
        return try await next(request)
    }
}

func resilienceCases(_ env: Env) -> [Case] {
    func service(_ options: ResourceOptions) -> ResilientHttpbin {
        ResilientHttpbin(address: env.address, options: options)
    }
    return [
        Case(name: "Authentication.basic: httpbin's /basic-auth accepts the Authorization NetLayer sent") {
            c in
            let api = service(ResourceOptions(authentication: .basic(username: "ada", password: "p:ss word")))
            let reply = try await c.echo(
                api.at("/basic-auth/:user/:password").call(
                    .get, pathParts: ["user": "ada", "password": "p:ss word"]))
            c.equal("authenticated", .bool(true), reply["authenticated"])
            c.equal("user", .string("ada"), reply["user"])
        },
        Case(name: "Authenticator: a real 401 from /bearer is refreshed once and replayed with the token") {
            c in
            let authenticator = LateBearer()
            let auth = Authentication(authenticator)
            let api = service(ResourceOptions(authentication: auth))
            let response = try await api.at("/bearer").call(.get).response()
            let reply = try JSON.parse(response.data)
            c.equal("token", .string("fresh-token-1"), reply["token"])
            c.that("refreshCount", auth.refreshCount == 1, expected: "1", got: "\(auth.refreshCount)")
            c.that("attempts", response.attempts == 2, expected: "2", got: "\(response.attempts)")
        },
        Case(name: "RetryPolicy: GET /status/503 is sent maximumAttempts times, then fails with 503") { c in
            let api = service(
                ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(10), maximumAttempts: 3)))
            do {
                _ = try await api.at("/status/503").call(.get).response()
                c.fail("expected a 503 error")
            } catch let error as NetLayerError {
                c.that("status", error.statusCode == 503, expected: "503", got: "\(error.statusCode ?? 0)")
                c.that("attempts", error.attempts == 3, expected: "3", got: "\(error.attempts)")
            }
        },
        Case(name: "RetryPolicy: POST /status/500 is not retried unless the call is idempotent()") { c in
            let api = service(
                ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(10), maximumAttempts: 3)))
            for (executor, expected) in [
                (api.at("/status/500").call(.post, body: .json(["a": 1])), 1),
                (api.at("/status/500").call(.post, body: .json(["a": 1])).idempotent(), 3),
            ] {
                do {
                    _ = try await executor.response()
                    c.fail("expected a 500 error")
                } catch let error as NetLayerError {
                    c.that(
                        "attempts", error.attempts == expected, expected: "\(expected)",
                        got: "\(error.attempts)")
                }
            }
        },
        Case(name: "Validation.acceptingContentTypes: /html is refused, /json passes") { c in
            let json = Validation.successfulStatusCodes.acceptingContentTypes(["application/json"])
            let api = service(ResourceOptions(validation: json))
            _ = try await c.echo(api.at("/json").call(.get))
            do {
                _ = try await api.at("/html").call(.get).response()
                c.fail("expected unacceptableContentType")
            } catch let error as NetLayerError {
                c.that(
                    "code", error.code == .unacceptableContentType, expected: "unacceptableContentType",
                    got: "\(error.code)")
            }
        },
        Case(name: "Interceptor: a header it sets reaches httpbin") { c in
            let api = service(ResourceOptions(interceptors: [AttemptHeader()]))
            let reply = try await c.echo(api.at("/headers").call(.get))
            c.header(reply, "X-Attempt", is: "attempt-1")
        },
    ]
}
