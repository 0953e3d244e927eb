import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session a transport makes when it is given no configuration, and one it is given.
@Suite("Transport configuration")
struct TransportConfigurationTests {
    final class PlainAPI: Resource, @unchecked Sendable {
        init() { super.init(protocol: .http, domain: "127.0.0.1:9") }
    }

    @Test func theDefaultSessionKeepsNoCacheNoCredentialsAndNoCookiesOnEveryPlatform() throws {
        // NetLayer decides caching, authentication and redirects itself; URLSession must not decide
        // them first on any platform (and Linux's shared cookie storage writes a file per process).
        let transports = [
            URLSessionTransport(),
            try #require(PlainAPI().transport as? URLSessionTransport),
        ]
        let configurations =
            transports.map { $0.session.configuration } + [URLSessionTransport.defaultConfiguration]
        for configuration in configurations {
            #expect(configuration.urlCache == nil)
            #expect(configuration.urlCredentialStorage == nil)
            #expect(configuration.httpCookieStorage == nil)
            #expect(configuration.httpShouldSetCookies == false)
            #expect(configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        }
    }

    @Test func httpAuthenticationChallengesAreNetLayersAndTLSOnesTheSystems() {
        for method in [
            NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
            NSURLAuthenticationMethodDefault,
            NSURLAuthenticationMethodHTMLForm,
        ] {
            #expect(SessionDelegate.isHTTPAuthentication(method), "\(method)")
        }
        #expect(!SessionDelegate.isHTTPAuthentication("NSURLAuthenticationMethodServerTrust"))
        #expect(!SessionDelegate.isHTTPAuthentication("NSURLAuthenticationMethodClientCertificate"))
    }

    @Test func aConfigurationTheCallerGivesKeepsItsCache() {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        configuration.timeoutIntervalForRequest = 17
        let transport = URLSessionTransport(configuration: configuration)
        #expect(transport.session.configuration.urlCache != nil)
        #expect(transport.session.configuration.timeoutIntervalForRequest == 17)
    }

    @Test func eachDefaultConfigurationIsANewObject() {
        // A caller who changes the one it got must not change every later transport's.
        let first = URLSessionTransport.defaultConfiguration
        first.timeoutIntervalForRequest = 3
        #expect(URLSessionTransport.defaultConfiguration.timeoutIntervalForRequest != 3)
        #expect(first !== URLSessionTransport.defaultConfiguration)
    }
}
