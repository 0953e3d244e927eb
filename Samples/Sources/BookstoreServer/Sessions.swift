import Foundation
import Hummingbird

/// A signed-in user's tokens, as the service's sign-in page would hand them to an app.
public struct Session: Sendable {
    /// Sent as `Authorization: Bearer …`; it expires (see `BookstoreServer.start`'s
    /// `accessTokenLifetime`).
    public let accessToken: String
    /// Good for one `POST /v1/auth/refresh`, which returns a new pair.
    public let refreshToken: String
}

/// What the token service has done so far, for the sample to report.
public struct SessionStats: Sendable {
    /// Refreshes that issued new tokens.
    public var refreshes = 0
    /// Refreshes refused with 400 `invalid_grant`: an unknown or already used refresh token.
    public var refusedRefreshes = 0
    /// Requests refused with 401 `invalid_token` because their access token had expired.
    public var expiredTokenRejections = 0
}

/// OAuth 2-style tokens: access tokens that expire `lifetime` after they were issued, and refresh
/// tokens that rotate (each is good for one refresh, which returns a new one), as OAuth 2.1
/// recommends for public clients. Two refreshes with the same refresh token: the second fails.
actor TokenIssuer {
    enum Verdict { case valid, expired, unknown }

    let lifetime: Duration
    /// Access token → when it expires.
    private var accessTokens: [String: ContinuousClock.Instant] = [:]
    private var refreshTokens: Set<String> = []
    private(set) var stats = SessionStats()

    init(lifetime: Duration) { self.lifetime = lifetime }

    /// A new session, as a sign-in would create.
    func signIn() -> Session { issue() }

    /// New tokens for a live refresh token, which is spent; `nil` for an unknown or spent one.
    func refresh(_ refreshToken: String) -> Session? {
        guard refreshTokens.remove(refreshToken) != nil else {
            stats.refusedRefreshes += 1
            return nil
        }
        stats.refreshes += 1
        return issue()
    }

    func check(_ accessToken: String) -> Verdict {
        guard let expiry = accessTokens[accessToken] else { return .unknown }
        if ContinuousClock.now < expiry { return .valid }
        stats.expiredTokenRejections += 1
        return .expired
    }

    /// Ends every access token's life now, as if its lifetime had run out.
    func expireAll() {
        let now = ContinuousClock.now
        for token in accessTokens.keys { accessTokens[token] = now }
    }

    private func issue() -> Session {
        let session = Session(accessToken: "at_" + Self.random(), refreshToken: "rt_" + Self.random())
        accessTokens[session.accessToken] = ContinuousClock.now + lifetime
        refreshTokens.insert(session.refreshToken)
        return session
    }

    private static func random() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}

/// `POST /v1/auth/refresh`: the token endpoint (RFC 6749 §6). A form body with
/// `grant_type=refresh_token` and `refresh_token=…`; the answer is a token response (§5.1) with a
/// new access token and a new refresh token. An unknown or spent refresh token is 400
/// `invalid_grant`. Needs no bearer token: the refresh token is the credential.
struct TokenRoutes {
    static let path = "/v1/auth/refresh"
    let issuer: TokenIssuer

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("auth/refresh", use: refresh)
    }

    @Sendable func refresh(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let type = request.headers[.contentType],
            type.lowercased().hasPrefix("application/x-www-form-urlencoded")
        else {
            throw APIError.unsupportedMediaType("send the grant as application/x-www-form-urlencoded")
        }
        let body = try await request.body.collect(upTo: 16 * 1024)
        let form = Self.form(String(decoding: body.readableBytesView, as: UTF8.self))
        guard form["grant_type"] == "refresh_token", let refreshToken = form["refresh_token"] else {
            throw APIError(
                status: .badRequest, code: "unsupported_grant_type",
                message: "send grant_type=refresh_token and a refresh_token")
        }
        guard let session = await issuer.refresh(refreshToken) else {
            throw APIError(
                status: .badRequest, code: "invalid_grant",
                message: "the refresh token is unknown or was already used")
        }
        var response = try JSONResponse.make(
            TokenResponse(
                accessToken: session.accessToken, tokenType: "Bearer",
                expiresIn: Int(issuer.lifetime.components.seconds), refreshToken: session.refreshToken))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `a=1&b=x%20y` → `["a": "1", "b": "x y"]`.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}

/// The token response of RFC 6749 §5.1 (snake_case on the wire).
struct TokenResponse: Encodable, Sendable {
    var accessToken: String
    var tokenType: String
    var expiresIn: Int
    var refreshToken: String
}
