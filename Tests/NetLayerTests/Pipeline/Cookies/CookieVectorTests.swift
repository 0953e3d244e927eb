import Foundation
import Testing

@testable import NetLayer

/// The parser vectors of the http-state test suite (github.com/abarth/http-state,
/// `tests/data/parser.json`, written with RFC 6265), ported as data: the `Set-Cookie` fields a
/// server at `http://home.example.org:8888/cookie-parser?<test>` sends, and the `Cookie` header a
/// later request to `sent-to` (default `/cookie-parser-result`) carries. The suite's `DISABLED_`
/// vectors and the 4 KiB ones (covered by `SetCookieParsingTests`) are left out.
///
/// Differences, each on purpose: `ORDERING0001` lists its cookies unordered; here they are in RFC
/// 6265 §5.4's order (longer paths first, then earlier creation).
@Suite("Cookies: http-state parser vectors")
struct CookieVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var test: String
        var received: [String]
        var sentTo = "/cookie-parser-result"
        var sent: String?
        var testDescription: String { test }
    }

    /// The suite was written around 2010; its dates (`Expires=… 2019`) are in that future.
    static let now = Date(timeIntervalSince1970: 1_262_304_000)

    static let vectors: [Vector] = [
        Vector(test: "0001", received: ["foo=bar"], sent: "foo=bar"),
        Vector(test: "0002", received: ["foo=bar; Expires=Fri, 07 Aug 2019 08:04:19 GMT"], sent: "foo=bar"),
        Vector(
            test: "0003",
            received: [
                "foo=bar; Expires=Fri, 07 Aug 2007 08:04:19 GMT",
                "foo2=bar2; Expires=Fri, 07 Aug 2017 08:04:19 GMT",
            ], sent: "foo2=bar2"),
        Vector(test: "0004", received: ["foo"], sent: nil),
        Vector(test: "0005", received: ["foo=bar; max-age=10000;"], sent: "foo=bar"),
        Vector(test: "0006", received: ["foo=bar; max-age=0;"], sent: nil),
        Vector(test: "0007", received: ["foo=bar; version=1;"], sent: "foo=bar"),
        Vector(test: "0009", received: ["foo=bar; customvalue=1000;"], sent: "foo=bar"),
        Vector(test: "0010", received: ["foo=bar; secure;"], sent: nil),
        Vector(test: "0011", received: [#"foo=bar; customvalue="1000 or more";"#], sent: "foo=bar"),
        Vector(test: "0012", received: [#"foo=bar; customvalue="no trailing semicolon""#], sent: "foo=bar"),
        Vector(test: "0013", received: ["foo=bar", "foo=qux"], sent: "foo=qux"),
        Vector(test: "0014", received: ["foo1=bar", "foo2=qux"], sent: "foo1=bar; foo2=qux"),
        Vector(test: "0016", received: ["z=y", "a=b"], sent: "z=y; a=b"),
        Vector(test: "0017", received: ["z=y, a=b"], sent: "z=y, a=b"),
        Vector(test: "0018", received: ["z=y; foo=bar, a=b"], sent: "z=y"),
        Vector(test: "0019", received: ["foo=b;max-age=3600, c=d;path=/"], sent: "foo=b"),
        Vector(test: "0020", received: ["a=b", "=", "c=d"], sent: "a=b; c=d"),
        Vector(test: "0021", received: ["a=b", "=x", "c=d"], sent: "a=b; c=d"),
        Vector(test: "0022", received: ["a=b", "x=", "c=d"], sent: "a=b; x=; c=d"),
        Vector(test: "0023", received: ["foo", ""], sent: nil),
        Vector(test: "0025", received: ["foo", "; bar"], sent: nil),
        Vector(test: "0026", received: ["foo", "   "], sent: nil),
        Vector(test: "ATTRIBUTE0002", received: ["foo=bar; seCURe"], sent: nil),
        Vector(test: "ATTRIBUTE0003", received: [#"foo=bar; "Secure""#], sent: "foo=bar"),
        Vector(test: "ATTRIBUTE0004", received: ["foo=bar; Secure="], sent: nil),
        Vector(test: "ATTRIBUTE0006", received: ["foo=bar; Secure qux"], sent: "foo=bar"),
        Vector(test: "ATTRIBUTE0007", received: ["foo=bar; Secure =aaaaa"], sent: nil),
        Vector(test: "ATTRIBUTE0011", received: ["foo=bar; Secure    ; qux"], sent: nil),
        Vector(test: "ATTRIBUTE0014", received: ["foo=bar; Path"], sent: "foo=bar"),
        Vector(test: "ATTRIBUTE0015", received: ["foo=bar; Path="], sent: "foo=bar"),
        Vector(test: "ATTRIBUTE0017", received: ["foo=bar; Path=/qux"], sent: nil),
        Vector(test: "ATTRIBUTE0018", received: ["foo=bar; Path    =/qux"], sent: nil),
        Vector(test: "ATTRIBUTE0019", received: ["foo=bar; Path=    /qux"], sent: nil),
        Vector(test: "ATTRIBUTE0020", received: ["foo=bar; Path=/qux      ; taz"], sent: nil),
        Vector(test: "ATTRIBUTE0021", received: ["foo=bar; Path=/qux; Path=/"], sent: "foo=bar"),
        Vector(test: "ATTRIBUTE0022", received: ["foo=bar; Path=/; Path=/qux"], sent: nil),
        Vector(
            test: "ATTRIBUTE0023", received: ["foo=bar; Path=/qux; Path=/cookie-parser-result"],
            sent: "foo=bar"),
        Vector(
            test: "ATTRIBUTE0024", received: ["foo=bar; Path=/cookie-parser-result; Path=/qux"], sent: nil),
        Vector(test: "ATTRIBUTE0025", received: ["foo=bar; qux; Secure"], sent: nil),
        Vector(test: "ATTRIBUTE0026", received: [#"foo=bar; qux="aaa;bbb"; Secure"#], sent: nil),
        Vector(test: "CHARSET0001", received: ["foo=春节回家路·春运完全手册"], sent: "foo=春节回家路·春运完全手册"),
        Vector(test: "CHARSET0002", received: ["春节回=家路·春运完全手册"], sent: "春节回=家路·春运完全手册"),
        Vector(test: "CHARSET0003", received: ["春节回=家路·春运; 完全手册"], sent: "春节回=家路·春运"),
        Vector(test: "CHROMIUM0002", received: [#"aBc="zzz "   ;"#], sent: #"aBc="zzz ""#),
        Vector(test: "CHROMIUM0004", received: [#"aBc="zz;pp" ; ;"#], sent: #"aBc="zz"#),
        Vector(test: "CHROMIUM0006", received: [#"aBc="zzz "   "ppp"  ;"#], sent: #"aBc="zzz "   "ppp""#),
        Vector(test: "CHROMIUM0008", received: [#"aBc=A"B ;"#], sent: #"aBc=A"B"#),
        Vector(test: "CHROMIUM0009", received: ["BLAHHH; path=/;"], sent: nil),
        Vector(test: "CHROMIUM0010", received: [#""BLA\"HHH"; path=/;"#], sent: nil),
        Vector(test: "CHROMIUM0012", received: ["=ABC"], sent: nil),
        Vector(test: "CHROMIUM0013", received: ["ABC=;  path = /"], sent: "ABC="),
        Vector(test: "CHROMIUM0014", received: ["  A  = BC  ;foo;;;   bar"], sent: "A=BC"),
        Vector(test: "CHROMIUM0015", received: ["  A=== BC  ;foo;;;   bar"], sent: "A=== BC"),
        Vector(
            test: "CHROMIUM0017",
            received: ["foo=zohNumRKgI0oxyhSsV3Z7D  ; expires=Sun, 18-Apr-2027 21:06:29 GMT ; path=/  ;  "],
            sent: "foo=zohNumRKgI0oxyhSsV3Z7D"),
        Vector(test: "CHROMIUM0018", received: ["    "], sent: nil),
        Vector(test: "COMMA0001", received: ["foo=bar, baz=qux"], sent: "foo=bar, baz=qux"),
        Vector(test: "COMMA0002", received: [#"foo="bar, baz=qux""#], sent: #"foo="bar, baz=qux""#),
        Vector(test: "COMMA0003", received: ["foo=bar; b,az=qux"], sent: "foo=bar"),
        Vector(test: "COMMA0005", received: ["foo=bar; Max-Age=50,399"], sent: "foo=bar"),
        Vector(
            test: "COMMA0006", received: ["foo=bar; Expires=Fri, 07 Aug 2019 08:04:19 GMT"], sent: "foo=bar"),
        Vector(
            test: "COMMA0007", received: ["foo=bar; Expires=Fri 07 Aug 2019 08:04:19 GMT, baz=qux"],
            sent: "foo=bar"),
        Vector(
            test: "DOMAIN0001", received: ["foo=bar; domain=home.example.org"],
            sentTo: "http://home.example.org:8888/cookie-parser-result", sent: "foo=bar"),
        Vector(
            test: "DOMAIN0002", received: ["foo=bar; domain=home.example.org"],
            sentTo: "http://sibling.example.org:8888/cookie-parser-result", sent: nil),
        Vector(
            test: "DOMAIN0004", received: ["foo=bar; domain=home.example.org"],
            sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result", sent: "foo=bar"),
        Vector(
            test: "DOMAIN0005", received: ["foo=bar; domain=.home.example.org"],
            sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result", sent: "foo=bar"),
        Vector(
            test: "DOMAIN0007", received: ["foo=bar; domain=sibling.example.org"],
            sentTo: "http://sibling.example.org:8888/cookie-parser-result", sent: nil),
        Vector(test: "DOMAIN0008", received: ["foo=bar; domain=.example.org"], sent: "foo=bar"),
        Vector(test: "DOMAIN0010", received: ["foo=bar; domain=..home.example.org"], sent: nil),
        Vector(test: "DOMAIN0011", received: ["foo=bar; domain=home..example.org"], sent: nil),
        Vector(test: "DOMAIN0012", received: ["foo=bar; domain=  .home.example.org"], sent: "foo=bar"),
        Vector(test: "DOMAIN0013", received: ["foo=bar; domain=  .  home.example.org"], sent: nil),
        Vector(test: "DOMAIN0014", received: ["foo=bar; domain=home.example.org."], sent: nil),
        Vector(test: "DOMAIN0016", received: ["foo=bar; domain=home.example.org ."], sent: nil),
        Vector(test: "DOMAIN0017", received: ["foo=bar; domain=.org"], sent: nil),
        Vector(test: "DOMAIN0018", received: ["foo=bar; domain=.org."], sent: nil),
        Vector(
            test: "DOMAIN0019",
            received: ["foo=bar; domain=home.example.org", "foo2=bar2; domain=.home.example.org"],
            sent: "foo=bar; foo2=bar2"),
        Vector(
            test: "DOMAIN0020",
            received: ["foo2=bar2; domain=.home.example.org", "foo=bar; domain=home.example.org"],
            sent: "foo2=bar2; foo=bar"),
        Vector(test: "DOMAIN0021", received: [#"foo=bar; domain="home.example.org""#], sent: nil),
        Vector(
            test: "DOMAIN0023",
            received: ["foo2=bar2; domain=.example.org", "foo=bar; domain=home.example.org"],
            sent: "foo2=bar2; foo=bar"),
        Vector(
            test: "DOMAIN0024", received: ["foo=bar; domain=.example.org; domain=home.example.org"],
            sentTo: "http://sibling.example.org:8888/cookie-parser-result", sent: nil),
        Vector(
            test: "DOMAIN0025", received: ["foo=bar; domain=home.example.org; domain=.example.org"],
            sentTo: "http://sibling.example.org:8888/cookie-parser-result", sent: "foo=bar"),
        Vector(test: "DOMAIN0026", received: ["foo=bar; domain=home.eXaMpLe.org"], sent: "foo=bar"),
        Vector(test: "DOMAIN0027", received: ["foo=bar; domain=home.example.org:8888"], sent: nil),
        Vector(
            test: "DOMAIN0028", received: ["foo=bar; domain=subdomain.home.example.org"],
            sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result", sent: nil),
        Vector(
            test: "DOMAIN0029", received: ["foo=bar"],
            sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result", sent: nil),
        Vector(
            test: "DOMAIN0033", received: ["foo=bar; domain=home.example.org"],
            sentTo: "http://hoMe.eXaMplE.org:8888/cookie-parser-result", sent: "foo=bar"),
        Vector(
            test: "DOMAIN0034", received: ["foo=bar; domain=home.example.org; domain=home.example.com"],
            sent: nil),
        Vector(
            test: "DOMAIN0035", received: ["foo=bar; domain=home.example.com; domain=home.example.org"],
            sent: "foo=bar"),
        Vector(
            test: "DOMAIN0041", received: ["foo=bar; domain=.sibling.example.org"],
            sentTo: "http://sibling.example.org:8888/cookie-parser-result", sent: nil),
        Vector(test: "MOZILLA0001", received: ["foo=bar; max-age=-1"], sent: nil),
        Vector(test: "MOZILLA0003", received: ["foo=bar; expires=Thu, 10 Apr 1980 16:33:12 GMT"], sent: nil),
        Vector(test: "MOZILLA0004", received: ["foo=bar; max-age=60"], sent: "foo=bar"),
        Vector(
            test: "MOZILLA0009",
            received: ["foo=bar; max-age=60", "foo1=bar; max-age=60", "foo=differentvalue; max-age=0"],
            sent: "foo1=bar"),
        Vector(
            test: "MOZILLA0011",
            received: ["test=parser; domain=.parser.test; ;; ;=; ,,, ===,abc,=; abracadabra! max-age=20;=;;"],
            sent: nil),
        Vector(
            test: "MOZILLA0012",
            received: [#"test="fubar! = foo;bar\";" parser; max-age=6"#, "five; max-age=2.63,"],
            sent: #"test="fubar! = foo"#),
        Vector(test: "MOZILLA0013", received: ["test=kill; max-age=0", "five; max-age=0"], sent: nil),
        Vector(test: "MOZILLA0017", received: ["six", "seven", " =eight", "test=six"], sent: "test=six"),
        Vector(test: "NAME0003", received: ["$=bar"], sent: "$=bar"),
        Vector(test: "NAME0016", received: ["+=bar"], sent: "+=bar"),
        Vector(test: "NAME0017", received: ["=a=bar"], sent: nil),
        Vector(test: "NAME0018", received: ["a =bar"], sent: "a=bar"),
        Vector(test: "NAME0020", received: [#""a=b"=bar"#], sent: #""a=b"=bar"#),
        Vector(test: "NAME0021", received: [#""a=b"=bar"#, #""a=qux"#], sent: #""a=qux"#),
        Vector(test: "NAME0023", received: ["foo;bar=baz"], sent: nil),
        Vector(test: "NAME0024", received: ["$Version=1; foo=bar"], sent: "$Version=1"),
        Vector(test: "NAME0025", received: ["===a=bar"], sent: nil),
        Vector(test: "NAME0030", received: ["foo bar=baz"], sent: "foo bar=baz"),
        Vector(test: "NAME0031", received: [#""foo;bar"=baz"#], sent: nil),
        Vector(test: "NAME0033", received: ["=foo=bar", "aaa"], sent: nil),
        Vector(test: "OPTIONAL_DOMAIN0030", received: ["foo=bar; domain="], sent: "foo=bar"),
        Vector(
            test: "OPTIONAL_DOMAIN0041", received: ["foo=bar; domain=example.org; domain="], sent: "foo=bar"),
        Vector(
            test: "OPTIONAL_DOMAIN0042", received: ["foo=bar; domain=foo.example.org; domain="], sent: nil),
        Vector(
            test: "ORDERING0001",
            received: [
                "key=val0;", "key=val1; path=/cookie-parser-result", "key=val2; path=/",
                "key=val3; path=/bar",
                "key=val4; domain=.example.org",
                "key=val5; domain=.example.org; path=/cookie-parser-result/foo",
            ], sentTo: "/cookie-parser-result/foo/baz", sent: "key=val5; key=val1; key=val2; key=val4"),
        Vector(
            test: "PATH0001", received: ["a=b; path=/", "x=y; path=/cookie-parser-result"], sent: "x=y; a=b"),
        Vector(
            test: "PATH0003", received: ["x=y; path=/", "a=b; path=/cookie-parser-result"], sent: "a=b; x=y"),
        Vector(test: "PATH0005", received: ["foo=bar; path=/cookie-parser-result/foo"], sent: nil),
        Vector(
            test: "PATH0006", received: ["foo=bar", "foo=qux; path=/cookie-parser-result/foo"],
            sent: "foo=bar"),
        Vector(
            test: "PATH0007", received: ["foo=bar; path=/cookie-parser-result/foo"],
            sentTo: "/cookie-parser-result/foo", sent: "foo=bar"),
        Vector(
            test: "PATH0008", received: ["foo=bar; path=/cookie-parser-result/foo"],
            sentTo: "/cookie-parser-result/bar", sent: nil),
        Vector(
            test: "PATH0009", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
            sentTo: "/cookie-parser-result/foo", sent: nil),
        Vector(
            test: "PATH0010", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
            sentTo: "/cookie-parser-result/foo/qux", sent: "foo=bar"),
        Vector(
            test: "PATH0013", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
            sentTo: "/cookie-parser-result/foo/baz", sent: nil),
        Vector(
            test: "PATH0014", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
            sentTo: "/cookie-parser-result/foo/qux", sent: nil),
        Vector(
            test: "PATH0015", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
            sentTo: "/cookie-parser-result/foo/qux/", sent: "foo=bar"),
        Vector(
            test: "PATH0016", received: ["foo=bar; path=/cookie-parser-result/foo/"],
            sentTo: "/cookie-parser-result/foo/qux", sent: "foo=bar"),
        Vector(
            test: "PATH0017", received: ["foo=bar; path=/cookie-parser-result/foo/"],
            sentTo: "/cookie-parser-result/foo//qux", sent: "foo=bar"),
        Vector(
            test: "PATH0018", received: ["foo=bar; path=/cookie-parser-result/foo/"],
            sentTo: "/cookie-parser-result/fooqux", sent: nil),
        Vector(test: "PATH0019", received: ["foo=bar; path"], sent: "foo=bar"),
        Vector(test: "PATH0022", received: ["foo=bar; path= /"], sent: "foo=bar"),
        Vector(test: "PATH0023", received: ["foo=bar; Path=/cookie-PARSER-result"], sent: nil),
        Vector(
            test: "PATH0024", received: ["foo=bar; path=/cookie-parser-result/foo/qux?"],
            sentTo: "/cookie-parser-result/foo/qux", sent: nil),
        Vector(
            test: "PATH0026", received: ["foo=bar; path=/cookie-parser-result/foo/qux;"],
            sentTo: "/cookie-parser-result/foo/qux", sent: "foo=bar"),
        Vector(
            test: "PATH0027", received: [#"foo=bar; path="/cookie-parser-result/foo/qux;""#],
            sentTo: "/cookie-parser-result/foo/qux", sent: "foo=bar"),
        Vector(
            test: "PATH0028", received: ["foo=bar; path=/cookie-parser-result/f%6Fo/bar"],
            sentTo: "/cookie-parser-result/foo/bar", sent: nil),
        Vector(
            test: "PATH0029",
            received: [
                "a=b;       path    =       /cookie-parser-result   ", "x=y;       path    =       /book   ",
            ], sent: "a=b"),
        Vector(test: "PATH0030", received: ["foo=bar; path=/dog; path="], sent: "foo=bar"),
        Vector(test: "PATH0031", received: ["foo=bar; path=; path=/dog"], sent: nil),
        Vector(
            test: "PATH0032",
            received: ["foo=bar; path=/cookie-parser-result", "foo=qux; path=/cookie-parser-result/"],
            sentTo: "/cookie-parser-result/dog", sent: "foo=qux; foo=bar"),
        Vector(test: "VALUE0001", received: ["foo=  bar"], sent: "foo=bar"),
        Vector(test: "VALUE0003", received: [#"foo="  bar ""#], sent: #"foo="  bar ""#),
        Vector(test: "VALUE0004", received: [#"foo="bar;baz""#], sent: #"foo="bar"#),
        Vector(test: "VALUE0005", received: [#"foo="bar=baz""#], sent: #"foo="bar=baz""#),
        Vector(
            test: "VALUE0006", received: ["   foo     =       bar             ;       ttt"], sent: "foo=bar"),
    ]

    @Test(arguments: vectors)
    func vector(_ vector: Vector) throws {
        var store = CookieStore(perDomain: 50, total: 3_000, pairBytes: 4_096)
        let origin = try #require(URL(string: "http://home.example.org:8888/cookie-parser?\(vector.test)"))
        store.store(setCookieValues: vector.received, from: origin, now: Self.now)
        let target =
            vector.sentTo.hasPrefix("/") ? "http://home.example.org:8888" + vector.sentTo : vector.sentTo
        let url = try #require(URL(string: target + "?\(vector.test)"))
        #expect(store.headerValue(for: url, now: Self.now.addingTimeInterval(1)) == vector.sent)
    }

    @Test func theJarGivesTheSameAnswers() throws {
        for vector in Self.vectors {
            let jar = CookieJar()
            let origin = try #require(
                URL(string: "http://home.example.org:8888/cookie-parser?\(vector.test)"))
            jar.store(setCookieValues: vector.received, from: origin, now: Self.now)
            let target =
                vector.sentTo.hasPrefix("/") ? "http://home.example.org:8888" + vector.sentTo : vector.sentTo
            let url = try #require(URL(string: target))
            let pairs = jar.cookies(for: url, now: Self.now.addingTimeInterval(1)).map(\.pair)
            #expect((pairs.isEmpty ? nil : pairs.joined(separator: "; ")) == vector.sent, "\(vector.test)")
        }
    }
}
