import Hummingbird

/// Every route needs `Authorization: Bearer <token>`; anything else is a 401 JSON error.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("missing Authorization header")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.lowercased().hasPrefix(prefix),
            header.dropFirst(prefix.count) == token[...]
        else {
            throw Self.unauthorized("invalid bearer token")
        }
        return try await next(request, context)
    }

    private static func unauthorized(_ message: String) -> APIError {
        APIError(
            status: .unauthorized, code: "unauthorized", message: message,
            headers: [.wwwAuthenticate: "Bearer realm=\"bookstore\""])
    }
}
