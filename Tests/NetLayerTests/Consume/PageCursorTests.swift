import Foundation
import Testing

@testable import NetLayer

/// The walk through `Link: rel="next"` pages, without a network: when it goes on, ends, or stops
/// with a typed error.
@Suite("Page cursor")
struct PageCursorTests {
    static let redactor = Redactor(redaction: .default)

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func itEndsWithTheFirstPageWithoutANextLink() throws {
        var cursor = PageCursor(maximumPages: 100)
        #expect(try cursor.step() == .first)
        let first = try Self.url("https://api.example.com/items")
        cursor.read(requested: first, sent: first, answered: first, next: nil, redactor: Self.redactor)
        #expect(try cursor.step() == .end)
        #expect(try cursor.step() == .end)
        #expect(cursor.pagesRead == 1 && cursor.isFinished)
    }

    @Test func aNextLinkIsFollowedWithoutItsFragment() throws {
        var cursor = PageCursor(maximumPages: 100)
        _ = try cursor.step()
        let first = try Self.url("https://api.example.com/items")
        cursor.read(
            requested: first, sent: first, answered: first,
            next: try Self.url("https://api.example.com/items?page=2#top"), redactor: Self.redactor)
        #expect(try cursor.step() == .follow(try Self.url("https://api.example.com/items?page=2")))
    }

    @Test(.tags(.hardening)) func limitsBelowOneAreRefusedAndHugeOnesClamped() throws {
        for limit in [0, -1, Int.min] {
            var cursor = PageCursor(maximumPages: limit)
            #expect(throws: NetLayerError.self) { try cursor.step() }
            #expect(cursor.isFinished)
            #expect(try cursor.step() == .end)
        }
        #expect(PageCursor(maximumPages: .max).maximumPages == PageCursor.largestMaximum)
        #expect(PageCursor(maximumPages: 1).maximumPages == 1)
    }

    @Test func theLastPageAllowedWithANextLinkThrowsTooManyPages() throws {
        var cursor = PageCursor(maximumPages: 2)
        for page in 1...2 {
            _ = try cursor.step()
            let here = try Self.url("https://api.example.com/items?page=\(page)")
            cursor.read(
                requested: here, sent: here, answered: here,
                next: try Self.url("https://api.example.com/items?page=\(page + 1)"), redactor: Self.redactor)
        }
        let error = #expect(throws: NetLayerError.self) { try cursor.step() }
        #expect(error?.code == .tooManyPages)
        #expect(try cursor.step() == .end)
    }

    @Test func aLinkToAnyURLAlreadyRequestedOrAnsweredIsALoop() throws {
        // Page 1 was asked for at /a, redirected to /b, and answered from /b.
        var cursor = PageCursor(maximumPages: 10)
        _ = try cursor.step()
        cursor.read(
            requested: try Self.url("https://h/a"), sent: try Self.url("https://h/b"),
            answered: try Self.url("https://h/b"), next: try Self.url("https://h/b#x"),
            redactor: Self.redactor)
        let error = #expect(throws: NetLayerError.self) { try cursor.step() }
        #expect(error?.code == .linkLoop)
        #expect(error?.message.hasPrefix("page 1 links to https://h/b as its next page") == true)
    }
}
