import Foundation
import Testing

@testable import NetLayer

/// Invalidation by unsafe methods (RFC 9111 §4.4).
@Suite("Caching: invalidation")
struct CachingInvalidationTests {
    private typealias F = CachingFixture
    private let target = URL(string: "https://api.example/items/1?x=1")!

    private func invalidated(_ method: HTTPMethod, status: Int = 200, _ pairs: (String, String)...)
        -> [String]
    {
        Invalidation.invalidatedURIs(
            method: method, status: status, requestURL: target,
            responseHeaders: HeaderFields(received: pairs.map { ($0.0, $0.1) })
        ).map(\.absoluteString)
    }

    @Test func anUnsafeMethodInvalidatesItsTarget_rfc9111_4_4() {
        // cache-tests invalidate-POST / -PUT / -DELETE / -M-SEARCH ("check").
        for method in [HTTPMethod.post, .put, .delete, .patch, HTTPMethod(rawValue: "M-SEARCH")] {
            #expect(invalidated(method) == [target.absoluteString], "\(method)")
        }
        #expect(invalidated(.post, status: 303) == [target.absoluteString])
    }

    @Test func safeMethodsAndErrorsInvalidateNothing_rfc9111_4_4() {
        for method in [HTTPMethod.get, .head, .options, .trace] {
            #expect(invalidated(method).isEmpty, "\(method)")
        }
        // invalidate-POST-failed ("check"): a 500 leaves the entry.
        #expect(invalidated(.post, status: 500).isEmpty)
        #expect(invalidated(.post, status: 404).isEmpty)
        #expect(invalidated(.post, status: 101).isEmpty)
    }

    @Test func locationAndContentLocationOnTheSameOriginAreInvalidated_rfc9111_4_4() {
        // invalidate-POST-location, invalidate-POST-cl ("check").
        #expect(
            invalidated(
                .post, ("Location", "/items/2"), ("Content-Location", "https://api.example:443/items/3"))
                == [target.absoluteString, "https://api.example/items/2", "https://api.example:443/items/3"])
    }

    @Test(.tags(.hardening)) func anotherOriginIsNeverInvalidated_rfc9111_4_4() {
        #expect(invalidated(.post, ("Location", "https://other.example/items/2")) == [target.absoluteString])
        #expect(invalidated(.post, ("Location", "http://api.example/items/2")) == [target.absoluteString])
        #expect(
            invalidated(.post, ("Content-Location", "https://api.example:8443/x")) == [target.absoluteString])
        #expect(invalidated(.post, ("Location", "mailto:a@b.example")) == [target.absoluteString])
        #expect(invalidated(.post, ("Location", "")) == [target.absoluteString])
    }
}
