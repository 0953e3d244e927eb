import Foundation
import NetLayer

extension Resilience {
    /// The token endpoint's answer (OAuth 2, RFC 6749 §5.1).
    struct TokenGrant: Decodable, Sendable {
        let accessToken: String
        let tokenType: String
        let expiresIn: Int
        let refreshToken: String
    }

    /// The token endpoint. In most apps it is an identity provider on a host of its own; here it
    /// lives on the bookstore's server, so it shares the bookstore's limiter.
    final class AuthAPI: Resource, @unchecked Sendable {
        init(host: String, limiter: RequestLimiter) {
            super.init(
                protocol: .http, domain: host, version: "v1", limiter: limiter,
                options: ResourceOptions { $0.decoder = Resilience.decoder })
        }

        func tokens() -> TokenTarget { TokenTarget(resource: self, path: "/auth/refresh") }
    }

    final class TokenTarget: Target, @unchecked Sendable {
        /// Trades a refresh token for new tokens: a form POST, as OAuth 2 asks.
        func refresh(_ refreshToken: String) async throws -> TokenGrant {
            try await makeExecutor(
                method: .post, params: ["grant_type": "refresh_token", "refresh_token": refreshToken]
            ).execute(model: TokenGrant.self)
        }
    }

    /// Where the app keeps its tokens (the keychain, in a real app). An actor, so any task may read
    /// and replace them.
    actor TokenStore {
        private(set) var accessToken: String
        private var refreshToken: String
        private let auth: AuthAPI

        init(accessToken: String, refreshToken: String, auth: AuthAPI) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.auth = auth
        }

        /// New tokens for the refresh token. The server rotates refresh tokens (each is good for
        /// one refresh), so both are kept; two refreshes at once would spend the same one twice
        /// and the second would fail: NetLayer runs one refresh per Authentication at a time.
        func refresh() async throws -> String {
            let grant = try await auth.tokens().refresh(refreshToken)
            accessToken = grant.accessToken
            refreshToken = grant.refreshToken
            return grant.accessToken
        }
    }

    /// Reads the token from the store for every attempt, and refreshes only when the server says
    /// the token is invalid or expired (RFC 6750: `WWW-Authenticate: Bearer error="invalid_token"`),
    /// not for any 401: a refresh cannot fix a token that was never valid.
    struct SessionAuthenticator: Authenticator {
        let tokens: TokenStore

        func authenticate(_ request: inout TransportRequest) async throws {
            let token = await tokens.accessToken
            try request.headerFields.setValue("Bearer \(token)", for: "Authorization")
        }

        func refresh() async throws {
            _ = try await tokens.refresh()
        }

        func isRejection(_ response: ResponseHead) -> Bool {
            response.statusCode == 401
                && (response.headerFields["WWW-Authenticate"] ?? "").contains("invalid_token")
        }
    }

    /// The app's connection to the bookstore once the user signed in.
    struct SignedInClient: Sendable {
        let quota: RequestLimiter
        let tokens: TokenStore
        let authentication: Authentication
        let bookstore: BookstoreAPI

        init(host: String, accessToken: String, refreshToken: String, accessLog: AccessLog) {
            // One quota for everything sent to the bookstore's host, the token endpoint included:
            // 4 requests at once, 5 per second spread evenly, and 100 ms to spare for requests
            // that reach the server closer together than they left.
            let quota = RequestLimiter(
                maxConcurrentRequests: 4, rateLimits: [RateLimit.perSecond(5).paced()],
                safetyMargin: .milliseconds(100))
            let auth = AuthAPI(host: host, limiter: quota)
            let tokens = TokenStore(accessToken: accessToken, refreshToken: refreshToken, auth: auth)
            let authentication = Authentication.bearer(token: accessToken) { _ in
                try await tokens.refresh()
            }
            let bookstore = BookstoreAPI(
                host: host, authentication: authentication, limiter: quota, accessLog: accessLog)
            self.quota = quota
            self.tokens = tokens
            self.authentication = authentication
            self.bookstore = bookstore
        }
    }
}

extension Resilience {
    /// The session is over: the user has to sign in again.
    struct SignInRequired: Error {
        /// What ended it: `.authenticationFailed` (the refresh failed; its `underlying` says why)
        /// or a 401 to the replay with the new token.
        let cause: NetLayerError
    }
}

extension Resilience.BookstoreAPI {
    /// A book's title; `nil` when there is no such book.
    func title(of id: Int) async throws -> String? {
        do {
            return try await books().get(id: id).value.title
        } catch let error as NetLayerError
            where error.code == .authenticationFailed || error.statusCode == 401
        {
            // The refresh failed, or the service refused the new token too: no retry can help.
            throw Resilience.SignInRequired(cause: error)
        } catch let error as NetLayerError where error.statusCode == 404 {
            return nil
        }
    }
}
