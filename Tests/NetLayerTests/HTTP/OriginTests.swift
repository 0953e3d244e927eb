import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Origin` (RFC 6454 §4, RFC 9110 §4.3.1): the one answer to "same scheme, host and port", used
/// by `follow` and redirects.
@Suite("Origin")
struct OriginTests {
    private func origin(_ text: String) throws -> Origin? { Origin(try #require(URL(string: text))) }

    private func same(_ lhs: String, _ rhs: String) throws -> Bool {
        Origin.same(try #require(URL(string: lhs)), try #require(URL(string: rhs)))
    }

    @Test func aMissingPortIsTheSchemesDefault() throws {
        #expect(try origin("http://h.example/a")?.port == 80)
        #expect(try origin("https://h.example/a")?.port == 443)
        #expect(try origin("https://h.example:8443/a")?.port == 8443)
        #expect(try same("https://h.example/a", "https://h.example:443/b"))
        #expect(try same("http://h.example", "http://h.example:80/"))
        #expect(try !same("http://h.example", "http://h.example:443"))
        #expect(try !same("http://h.example", "https://h.example"))
        #expect(try !same("https://h.example", "https://h.example:8443"))
    }

    @Test func aSchemeWithoutAKnownDefaultHasNoDefaultPort() throws {
        // `ftp` (21) and `wss` (443) are not 80: no port is assumed for a scheme NetLayer does not send.
        #expect(try origin("ftp://h.example/a")?.port == nil)
        #expect(try origin("wss://h.example/a")?.port == nil)
        #expect(try !same("ftp://h.example/a", "ftp://h.example:80/a"))
        #expect(try !same("wss://h.example/a", "wss://h.example:80/a"))
        #expect(try same("ftp://h.example:21/a", "ftp://h.example:21/b"))
        #expect(Origin.defaultPort(forScheme: "HTTPS") == 443)
    }

    @Test func schemeAndHostCompareCaseInsensitively() throws {
        let upper = try #require(try origin("HTTPS://API.Example.COM/Path"))
        #expect(upper.scheme == "https" && upper.host == "api.example.com")
        #expect(try same("HTTPS://API.Example.COM/Path", "https://api.example.com:443/path"))
        #expect(upper.description == "https://api.example.com")
    }

    @Test func anIPv6HostIsBracketedOnlyWhenShown() throws {
        let local = try #require(try origin("http://[::1]:8080/x"))
        #expect(local.host == "::1")
        #expect(local.port == 8080)
        #expect(local.description == "http://[::1]:8080")
        #expect(try same("http://[::1]:8080/x", "HTTP://[::1]:8080/y"))
        #expect(try same("https://[FE80::A]/", "https://[fe80::a]:443/"))
        #expect(try !same("http://[::1]:8080/", "http://127.0.0.1:8080/"))
        #expect(
            Origin(scheme: "https", host: "[::1]", port: nil)
                == Origin(scheme: "https", host: "::1", port: 443))
        #expect(try origin("https://[::1]/")?.description == "https://[::1]")
    }

    @Test func userInfoPathQueryAndFragmentPlayNoPart() throws {
        #expect(try same("https://user:secret@h.example/a?q=1#f", "https://h.example/b"))
        let shown = try #require(try origin("https://user:secret@h.example:8443/a?token=t#f")).description
        #expect(shown == "https://h.example:8443")
    }

    @Test func aURLWithoutAHostHasNoOrigin() throws {
        for text in ["mailto:a@b.example", "file:///tmp/x", "/relative/path", "urn:isbn:0451450523"] {
            #expect(try origin(text) == nil, "\(text)")
            // Not even the same URL twice: no origin is shared with anything.
            #expect(try !same(text, text), "\(text)")
        }
    }

    @Test func theDefaultPortIsLeftOutWhenShownAndAnOtherPortKept() throws {
        #expect(try origin("http://h.example:80/")?.description == "http://h.example")
        #expect(try origin("https://h.example:80/")?.description == "https://h.example:80")
        #expect(try origin("ftp://h.example/")?.description == "ftp://h.example")
    }

    @Test func aFollowedURLOnTheResourcesOriginWrittenOtherwiseIsAccepted() throws {
        for text in ["HTTPS://API.example.com:443/next?page=2", "https://api.example.com/next"] {
            let url = try FollowURL.url(
                try #require(URL(string: text)), base: "https://api.example.com/v1", query: "")
            #expect(url.absoluteString == text)
        }
        let error = #expect(throws: NetLayerError.self) {
            try FollowURL.url(
                try #require(URL(string: "https://api.example.com:8443/x")),
                base: "https://API.example.com:443",
                query: "")
        }
        #expect(error?.message.contains("https://api.example.com:8443") == true)
        #expect(error?.message.contains("origin https://api.example.com ") == true)
    }

    @Test func aRedirectToTheSameOriginWrittenOtherwiseKeepsTheCredentials() throws {
        let request = TransportRequest(
            method: .get, url: try #require(URL(string: "https://h.example/a")),
            headerFields: HeaderFields(received: [("Authorization", "Bearer t"), ("Cookie", "c=1")]))
        for location in ["HTTPS://H.EXAMPLE:443/b", "https://h.example:443/b", "/b"] {
            let head = ResponseHead(
                statusCode: 307, headerFields: HeaderFields(received: [("Location", location)]),
                url: request.url)
            let next = try #require(try RedirectRule.next(after: request, response: head, policy: .default))
            #expect(next.request.headerFields["Authorization"] == "Bearer t", "\(location)")
            #expect(next.request.headerFields["Cookie"] == "c=1", "\(location)")
        }
        for location in ["https://h.example:8443/b", "https://other.example/b", "https://h.example.evil/b"] {
            let head = ResponseHead(
                statusCode: 307, headerFields: HeaderFields(received: [("Location", location)]),
                url: request.url)
            let next = try #require(try RedirectRule.next(after: request, response: head, policy: .default))
            #expect(next.request.headerFields["Authorization"] == nil, "\(location)")
            #expect(next.request.headerFields["Cookie"] == nil, "\(location)")
        }
    }
}

extension WireTests {
    /// The transport's record of hosts that sent a challenge is keyed by ``Origin``. Before, its key
    /// was the scheme, host and port as written (`http://LocalHost:8080` ≠ `http://localhost:8080`,
    /// `https://h:-1` ≠ `https://h:443`), so on Linux a call to a host that had challenged, written
    /// in other letters or with its default port, lost its 401 body as if the host never had.
    @Suite("Origin on the wire")
    struct OriginWireTests {
        static let server = TestServerPool.make()

        @Test func aChallengedHostWrittenInOtherLettersKeepsItsBodyOnTheDirectPath() async throws {
            let server = try Self.server.get()
            // One transport of its own, which no other test has seen challenged; two resources on
            // it, naming the one host in other letters. No timeout and no size limit: the direct path.
            let transport = URLSessionTransport()
            let options = ResourceOptions(maximumResponseSize: nil)
            let lower = Resource(
                protocol: .http, domain: "localhost:\(server.port)", transport: transport, options: options)
            let upper = Resource(
                protocol: .http, domain: "LocalHost:\(server.port)", transport: transport, options: options)
            await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: lower, path: "/basic-auth").makeExecutor().execute()
            }
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: upper, path: "/basic-auth").makeExecutor().execute()
            }
            #expect(error?.statusCode == 401, "\(String(describing: error))")
            #expect(error?.header("WWW-Authenticate") == "Basic realm=\"netlayer-test\"")
            #expect(error?.body.map { String(decoding: $0, as: UTF8.self) } == "auth required")
        }
    }
}
