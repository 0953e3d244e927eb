import Foundation
import Testing

@testable import NetLayer

/// Invalidation by unsafe methods (RFC 9111 §4.4).
@Suite("Caching: invalidation")
struct CachingInvalidationTests {
    private typealias F = CachingFixture
    private let target = "https://api.example/items/1?x=1"

    private func invalidated(_ method: HTTPMethod, status: Int = 200, _ pairs: (String, String)...)
        throws -> [String]
    {
        Invalidation.invalidatedURIs(
            method: method, status: status, requestURL: try #require(URL(string: target)),
            responseHeaders: HeaderFields(received: pairs.map { ($0.0, $0.1) })
        ).map(\.absoluteString)
    }

    @Test func anUnsafeMethodInvalidatesItsTarget_rfc9111_4_4() throws {
        // cache-tests invalidate-POST / -PUT / -DELETE / -M-SEARCH ("check").
        for method in [HTTPMethod.post, .put, .delete, .patch, HTTPMethod(rawValue: "M-SEARCH")] {
            #expect(try invalidated(method) == [target], "\(method)")
        }
        #expect(try invalidated(.post, status: 303) == [target])
    }

    @Test func safeMethodsAndErrorsInvalidateNothing_rfc9111_4_4() throws {
        for method in [HTTPMethod.get, .head, .options, .trace] {
            #expect(try invalidated(method).isEmpty, "\(method)")
        }
        // invalidate-POST-failed ("check"): a 500 leaves the entry.
        #expect(try invalidated(.post, status: 500).isEmpty)
        #expect(try invalidated(.post, status: 404).isEmpty)
        #expect(try invalidated(.post, status: 101).isEmpty)
    }

    @Test func locationAndContentLocationOnTheSameOriginAreInvalidated_rfc9111_4_4() throws {
        // invalidate-POST-location, invalidate-POST-cl ("check").
        #expect(
            try invalidated(
                .post, ("Location", "/items/2"), ("Content-Location", "https://api.example:443/items/3"))
                == [target, "https://api.example/items/2", "https://api.example:443/items/3"])
    }

    @Test(.tags(.hardening)) func anotherOriginIsNeverInvalidated_rfc9111_4_4() throws {
        #expect(try invalidated(.post, ("Location", "https://other.example/items/2")) == [target])
        #expect(try invalidated(.post, ("Location", "http://api.example/items/2")) == [target])
        #expect(
            try invalidated(.post, ("Content-Location", "https://api.example:8443/x")) == [target])
        #expect(try invalidated(.post, ("Location", "mailto:a@b.example")) == [target])
        #expect(try invalidated(.post, ("Location", "")) == [target])
    }
}
