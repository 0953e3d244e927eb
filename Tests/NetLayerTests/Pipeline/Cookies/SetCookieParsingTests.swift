import Foundation
import Testing

@testable import NetLayer

/// RFC 6265 §5.2: a `Set-Cookie` value as the jar reads it, and §5.1.1's dates.
@Suite("Cookies: parsing Set-Cookie")
struct SetCookieParsingTests {
    @Test func nameValueAndAttributesAnyCase() throws {
        let cookie = try #require(
            SetCookie.parse(
                " sid = a1b2 ; pAtH=/app; DOMAIN=.Example.COM; secure; HTTPONLY; Max-Age=60; SameSite=lax; Foo=1"
            ))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a1b2")
        #expect(cookie.path == "/app")
        #expect(cookie.domain == "example.com")
        #expect(cookie.secure && cookie.httpOnly)
        #expect(cookie.maxAge == 60)
        #expect(cookie.sameSite == .lax)
    }

    @Test func linesSection52Ignores() {
        for line in [
            "", "   ", "foo", "=bar", "=", " =x", "foo;bar=baz", "a=b\u{0}c", "a=b\rc",
            "a=b\nSet-Cookie: x=y",
            "a=\u{7F}",
        ] {
            #expect(SetCookie.parse(line) == nil, "\(line.debugDescription) was not ignored")
        }
        // HTAB is not a control character here; an empty value is a value.
        #expect(SetCookie.parse("a=b\tc")?.value == "b\tc")
        #expect(SetCookie.parse("a=")?.value == "")
    }

    @Test func attributesItIgnores() throws {
        // Max-Age that is not all digits; an Expires that is no date; an empty Domain; a Path not
        // starting with '/'; an attribute value over 1,024 bytes.
        let cookie = try #require(
            SetCookie.parse(
                "a=b; Max-Age=1e3; Max-Age=50,399; Expires=soon; Domain=; Path=relative; SameSite=Sometimes; "
                    + "Domain=" + String(repeating: "x", count: 1025) + ".com"))
        #expect(cookie.maxAge == nil)
        #expect(cookie.expires == nil)
        #expect(cookie.domain == nil)
        #expect(cookie.path == nil)
        #expect(cookie.sameSite == nil)
    }

    @Test func theLastAttributeWinsAndAnInvalidPathResetsToTheDefault() throws {
        #expect(SetCookie.parse("a=b; Path=/x; Path=/y")?.path == "/y")
        #expect(SetCookie.parse("a=b; Path=/x; Path=")?.path == nil)
        #expect(SetCookie.parse("a=b; Max-Age=5; Max-Age=-1")?.maxAge == -1)
        #expect(SetCookie.parse("a=b; Max-Age=99999999999999999999999")?.maxAge == Int.max)
        #expect(SetCookie.parse("a=b; Max-Age=-99999999999999999999999")?.maxAge == Int.min)
    }

    @Test func nameAndValueOverTheLimitIsIgnored() {
        let value = String(repeating: "v", count: 4_095)
        #expect(SetCookie.parse("a=" + value) != nil)
        #expect(SetCookie.parse("ab=" + value) == nil)
        #expect(SetCookie.parse("ab=" + value, maximumPairBytes: 8_192) != nil)
    }

    @Test func nonASCIIIsKeptAsItCame() throws {
        let cookie = try #require(SetCookie.parse("名前=値; Path=/ü"))
        #expect(cookie.name == "名前")
        #expect(cookie.value == "値")
        #expect(cookie.path == "/ü")
        // Invalid UTF-8 cannot reach a String; the replacement character is kept as any other.
        #expect(SetCookie.parse("a=\u{FFFD}")?.value == "\u{FFFD}")
    }

    @Test func hostileLinesAreBoundedAndNeverCrash() {
        let huge = "a=" + String(repeating: "x", count: 100_000)
        #expect(SetCookie.parse(huge) == nil)
        let manyAttributes = "a=b" + String(repeating: "; Path=/p; Secure; x", count: 10_000)
        #expect(SetCookie.parse(manyAttributes)?.path == "/p")
        let semicolons = "a=b" + String(repeating: ";", count: 100_000)
        #expect(SetCookie.parse(semicolons)?.value == "b")
        let commas = String(repeating: ",", count: 100_000)
        #expect(SetCookie.splitJoined(commas).count == 1)
        let equals = String(repeating: "=", count: 100_000)
        #expect(SetCookie.parse(equals) == nil)
    }

    // MARK: Foundation's joined fields

    @Test func joinedFieldsAreSplitButNotAtADatesComma() {
        #expect(
            SetCookie.splitJoined("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/, b=2, c=3; Secure")
                == ["a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/", "b=2", "c=3; Secure"])
        #expect(SetCookie.splitJoined("a=1") == ["a=1"])
        #expect(SetCookie.splitJoined("a=x, y") == ["a=x, y"])
        #expect(SetCookie.splitJoined("a=1,b=2") == ["a=1", "b=2"])
        #expect(SetCookie.splitJoined(", a=1") == ["a=1"])
    }

    // MARK: §5.1.1 dates

    /// Vectors from the http-state test suite (github.com/abarth/http-state,
    /// `tests/data/dates/examples.json` and `bsd-examples.json`, the latter © 2010 The Chromium
    /// Authors, BSD licence), with the expected date as seconds since 1970 (UTC); `nil` when the
    /// algorithm fails.
    static let dateVectors: [(String, TimeInterval?)] = [
        ("Mon, 10-Dec-2007 17:02:24 GMT", 1_197_306_144),
        ("Wed, 09 Dec 2009 16:27:23 GMT", 1_260_376_043),
        ("Thursday, 01-Jan-1970 00:00:00 GMT", 0),
        ("Mon Dec 10 16:32:30 2007 GMT", 1_197_304_350),
        ("Wednesday, 01-Jan-10 00:00:00 GMT", 1_262_304_000),
        ("Mon, 10-Dec-07 20:35:03 GMT", 1_197_318_903),
        ("Wed, 1 Jan 2020 00:00:00 GMT", 1_577_836_800),
        ("Saturday, 8-Dec-2012 21:24:09 GMT", 1_355_001_849),
        ("Thu, 31 Dec 23:55:55 2037 GMT", 2_145_916_555),
        ("Sun,  9 Dec 2012 13:42:05 GMT", 1_355_060_525),
        ("Wed Dec 12 2007 08:44:07 GMT-0500 (EST)", 1_197_449_047),
        ("Sun, 1-Jan-1995 00:00:00 GMT", 788_918_400),
        ("Wednesday, 01-Jan-10 0:0:00 GMT", 1_262_304_000),
        ("Thu, 10 Dec 2009 13:57:2 GMT", 1_260_453_422),
        // The suite's reference accepts this one; §5.1.1's grammar does not (`00:` is no time).
        ("Mon, 01-Jan-2011 00: 00:00 GMT", nil),
        ("Sat, 15-Apr-17 21:01:22 GMT", 1_492_290_082),
        ("Thu, 19/Apr\\2007 16:00:00 GMT", 1_176_998_400),
        (", 1-Jan-2003 00:00:00 GMT", 1_041_379_200),
        ("WillyWonka  ,  18-apr-07   22:50:12", 1_176_936_612),
        ("Mon, 18-Apr-77 22:50:13 GMT", 230_251_813),
        ("\"Sat, 15-Apr-17\\\"21:01:22\\\"GMT\"", 1_492_290_082),
        ("Partyday, 18- April-07 22:50:12", 1_176_936_612),
        ("Wednes, 1-Januar-2003 00:00:00 GMT", 1_041_379_200),
        ("Sat, 15-Apr-17 21:01:22 GMT-0400 (EDT)", 1_492_290_082),
        ("Sat, 15-Apr-17 21:01:22 11:22:33", 1_492_290_082),
        ("Sat, 15-Apr-17 ::00 21:01:22", 1_492_290_082),
        ("Sat, 15-Apr-17 91:22:33 21:01:22", nil),
        ("22:50:12 Thu Apr 18 2007 GMT", 1_176_936_612),
        ("Thu Apr 22:50:12 18 2007 GMT", 1_176_936_612),
        ("15-Sat, Apr 21:01:22 GMT 17", 1_492_290_082),
        ("15 17 Apr 21:01:22", 1_492_290_082),
        ("2017 April 15 21:01:22", 1_492_290_082),
        ("98 April 17 21:01:22", nil),
        ("Thu, 012-Aug-2008 20:49:07 GMT", nil),
        ("Thu, 12-Aug-31841 20:49:07 GMT", nil),
        ("Thu, 12-Aug-9999999999 20:49:07 GMT", nil),
        ("Thu, 999999999999-Aug-2007 20:49:07 GMT", nil),
        ("Thu, 12-Aug-2007 20:61:99999999999 GMT", nil),
        ("IAintNoDateFool", nil),
        // Beyond the suite: before 1601, 30 February, a leap day, hour 24.
        ("Mon, 01 Jan 1600 00:00:00 GMT", nil),
        ("Fri, 30 Feb 2024 00:00:00 GMT", nil),
        ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000),
        ("Thu, 01 Jan 2024 24:00:00 GMT", nil),
    ]

    @Test(arguments: dateVectors)
    func expiresDates(_ text: String, _ expected: TimeInterval?) {
        #expect(CookieDate.parse(text)?.timeIntervalSince1970 == expected)
    }

    @Test func expiresParsesThroughTheAttribute() throws {
        let cookie = try #require(SetCookie.parse("a=b; expires=Wed, 09 Dec 2009 16:27:23 GMT"))
        #expect(cookie.expires?.timeIntervalSince1970 == 1_260_376_043)
    }
}
