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

    @Test func theDefaultSessionHasNoURLCacheOnLinuxWhereItNeverCaches() throws {
        // Linux URLSession looks every request up in URLCache.shared without ever storing or
        // serving one (about 60 µs of CPU per small GET, measured); Apple platforms keep the cache.
        let transports = [
            URLSessionTransport(),
            try #require(PlainAPI().transport as? URLSessionTransport),
        ]
        for transport in transports {
            #if canImport(FoundationNetworking)
                #expect(transport.session.configuration.urlCache == nil)
            #else
                #expect(transport.session.configuration.urlCache != nil)
            #endif
        }
        #if canImport(FoundationNetworking)
            #expect(URLSessionTransport.defaultConfiguration.urlCache == nil)
        #endif
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
