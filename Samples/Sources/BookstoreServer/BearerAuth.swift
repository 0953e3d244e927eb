import Hummingbird

/// Every route but the token endpoint needs `Authorization: Bearer <token>`: the sample's fixed
/// token, or an access token the token endpoint issued and that has not expired. Anything else is
/// a 401 JSON error; an expired access token says so as RFC 6750 §3 asks
/// (`error="invalid_token"`), so a client knows a refresh will help.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let issuer: TokenIssuer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        // The refresh token in the body is the credential there.
        if request.method == .post, request.uri.path == TokenRoutes.path {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("missing Authorization header")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.lowercased().hasPrefix(prefix) else {
            throw Self.unauthorized("invalid bearer token")
        }
        let presented = String(header.dropFirst(prefix.count))
        if presented == token { return try await next(request, context) }
        switch await issuer.check(presented) {
        case .valid: return try await next(request, context)
        case .expired: throw Self.expired()
        case .unknown: throw Self.unauthorized("invalid bearer token")
        }
    }

    private static func unauthorized(_ message: String) -> APIError {
        APIError(
            status: .unauthorized, code: "unauthorized", message: message,
            headers: [.wwwAuthenticate: "Bearer realm=\"bookstore\""])
    }

    private static func expired() -> APIError {
        APIError(
            status: .unauthorized, code: "token_expired", message: "the access token expired",
            headers: [
                .wwwAuthenticate:
                    "Bearer realm=\"bookstore\", error=\"invalid_token\", error_description=\"the access token expired\""
            ])
    }
}
