import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

/// Hostile-servers item 6: a `Link` field of unclosed targets (`<a,<a,<a,…`, 90 KB) made every
/// `links` / `link("next")` access rescan to the end for each `<`: 46.5 s. Now one linear pass,
/// at most 100 link values read, parsed once per response.
@Suite("Link header parses in linear time")
struct LinkHeaderParsesInLinearTimeTests {
    static let server = TestServerPool.make()

    /// 90 KB of `<a,` with no `>` anywhere.
    static let unclosed = String(repeating: "<a,", count: 30_000)

    @Test func anUnclosedTargetFieldParsesInUnder50Milliseconds() throws {
        var fields = HeaderFields()
        fields.append("Link", Self.unclosed)
        let base = try #require(URL(string: "http://127.0.0.1/repos"))
        let clock = ContinuousClock()
        let start = clock.now
        let links = fields.links(relativeTo: base)
        let elapsed = clock.now - start
        #expect(links.isEmpty)
        #expect(elapsed < .milliseconds(50), "took \(elapsed)")
    }

    /// The same field from a server, read through a response: quick, and parsed only once.
    @Test func aResponsesHostileLinkFieldIsQuickAndParsedOnce() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        let field = Self.unclosed
        server.route(path) { _ in
            var response = TestResponse.json("[]")
            response.addHeader("Link", field)
            return response
        }
        let response = try await TestAPI(server: server).target(path).makeExecutor().response(
            model: JSONValue.self)
        #expect(response.parsedLinks.withLock { $0 } == nil)
        let clock = ContinuousClock()
        let start = clock.now
        let next = response.link("next")
        let links = response.links
        let copy = response
        let last = copy.link("last")
        let elapsed = clock.now - start
        #expect(next == nil && links.isEmpty && last == nil)
        #expect(response.parsedLinks.withLock { $0 } == [])
        #expect(elapsed < .milliseconds(50), "took \(elapsed)")
    }

    /// Many well-formed links: at most 100 are read, in time linear in the field.
    @Test func atMostAHundredLinksAreRead() throws {
        var fields = HeaderFields()
        fields.append(
            "Link",
            (0..<3000).map { "<https://api.example.com/r?page=\($0)>; rel=\"p\($0)\"" }.joined(
                separator: ", "))
        fields.append("Link", "<https://api.example.com/r?page=last>; rel=last")
        let clock = ContinuousClock()
        let start = clock.now
        let links = fields.links()
        let elapsed = clock.now - start
        #expect(links.count == 100)
        #expect(links.last?.url.absoluteString == "https://api.example.com/r?page=99")
        #expect(elapsed < .milliseconds(50), "took \(elapsed)")
    }

    /// At most 64 parameters of a link are read; the next link is still found.
    @Test func atMostSixtyFourParametersOfALinkAreRead() throws {
        var fields = HeaderFields()
        let parameters = (0..<100).map { "p\($0)=\($0)" }.joined(separator: "; ")
        fields.append("Link", "<https://a.example/>; \(parameters), <https://b.example/>; rel=next")
        let links = fields.links()
        #expect(links.map(\.url.absoluteString) == ["https://a.example/", "https://b.example/"])
        #expect(links.first?.parameters.count == 64 && links.first?.parameters["p63"] == "63")
        #expect(links.last?.relations == ["next"])
    }

    /// Other hostile shapes stay linear too: unclosed quoted parameters, endless parameters,
    /// a '>' only at the very end.
    @Test func otherHostileShapesParseQuickly() throws {
        let shapes = [
            "<https://a.example/>; title=\"" + String(repeating: "x\\\"", count: 30_000),
            "<https://a.example/>" + String(repeating: ";p", count: 45_000),
            String(repeating: "<a,", count: 30_000) + ">",
            String(repeating: "x,", count: 45_000),
            String(repeating: "<>", count: 45_000),
        ]
        for shape in shapes {
            var fields = HeaderFields()
            fields.append("Link", shape)
            let clock = ContinuousClock()
            let start = clock.now
            _ = fields.links()
            let elapsed = clock.now - start
            #expect(elapsed < .milliseconds(50), "\(shape.prefix(20))… took \(elapsed)")
        }
    }
}
