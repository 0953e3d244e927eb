import Foundation
import Testing

@testable import NetLayer

/// The per-resource cache of parsed URLs that preparation uses.
@Suite("Parsed URL cache")
struct ParsedURLsTests {
    @Test func aTextParsedOnceIsServedFromTheCacheEqualToAFreshParse() throws {
        let cache = ParsedURLs()
        let text = "https://api.example.com/v1/users/42?page=2&q=caf%C3%A9"
        let first = try #require(cache.url(text))
        let second = try #require(cache.url(text))
        #expect(first == second)
        #expect(first == URL(string: text))
        #expect(first.absoluteString == text)
        #expect(cache.count == 1)
    }

    @Test func aTextThatIsNoURLGivesNilAndIsNotKept() {
        let cache = ParsedURLs()
        #expect(cache.url("http://[::1") == nil)
        #expect(cache.url("") == nil)
        #expect(cache.count == 0)
    }

    @Test func theCacheNeverHoldsMoreThanItsCapacity() throws {
        let cache = ParsedURLs()
        for index in 0..<(ParsedURLs.capacity * 2 + 7) {
            let text = "https://api.example.com/items/\(index)"
            #expect(try #require(cache.url(text)).absoluteString == text)
            #expect(cache.count <= ParsedURLs.capacity)
        }
        #expect(cache.count > 0)
    }

    @Test func callsOfAResourceGetTheURLTheirOwnPathsAndParamsMake() throws {
        let api = Resource(protocol: .https, domain: "api.example.com", version: "v2")
        let users = Target(resource: api, path: "/users/:id")
        let first = try users.makeExecutor(pathParts: ["id": 7], params: ["page": 1]).transportRequest
        let second = try users.makeExecutor(pathParts: ["id": 8], params: ["page": 1]).transportRequest
        let again = try users.makeExecutor(pathParts: ["id": 7], params: ["page": 1]).transportRequest
        #expect(first.url.absoluteString == "https://api.example.com/v2/users/7?page=1")
        #expect(second.url.absoluteString == "https://api.example.com/v2/users/8?page=1")
        #expect(again.url == first.url)
        #expect(api.parsedURLs.count == 2)
    }
}
