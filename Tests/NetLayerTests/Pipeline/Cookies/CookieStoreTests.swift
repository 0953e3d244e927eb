import Foundation
import Testing

@testable import NetLayer

/// RFC 6265 §5.3 (storage) and §5.4 (the Cookie header) on the plain value, with explicit times.
@Suite("Cookies: the storage model")
struct CookieStoreTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    func store(_ limits: (Int, Int, Int) = (50, 3_000, 4_096)) -> CookieStore {
        CookieStore(perDomain: limits.0, total: limits.1, pairBytes: limits.2)
    }

    func url(_ text: String) -> URL { URL(string: text)! }

    func header(_ store: inout CookieStore, _ text: String, at now: Date = now) -> String? {
        store.headerValue(for: url(text), now: now)
    }

    // MARK: Domain

    @Test func hostOnlyCookiesGoToTheirHostOnly() {
        var jar = store()
        jar.store(setCookieValues: ["a=1"], from: url("https://api.example.com/login"), now: Self.now)
        #expect(header(&jar, "https://api.example.com/") == "a=1")
        #expect(header(&jar, "https://API.Example.COM/") == "a=1")
        #expect(header(&jar, "https://x.api.example.com/") == nil)
        #expect(header(&jar, "https://example.com/") == nil)
        #expect(jar.all.first?.hostOnly == true)
        #expect(jar.all.first?.domain == "api.example.com")
    }

    @Test func aDomainAttributeReachesSubdomainsAndALeadingDotIsIgnored() {
        var jar = store()
        jar.store(
            setCookieValues: ["a=1; Domain=.example.com", "b=2; Domain=api.example.com"],
            from: url("https://api.example.com/"), now: Self.now)
        #expect(header(&jar, "https://example.com/") == "a=1")
        #expect(header(&jar, "https://www.example.com/") == "a=1")
        #expect(header(&jar, "https://v2.api.example.com/") == "a=1; b=2")
        #expect(header(&jar, "https://notexample.com/") == nil)
        #expect(jar.all.allSatisfy { !$0.hostOnly })
    }

    @Test func aDomainTheHostIsNotInIsRefused() {
        var jar = store()
        jar.store(
            setCookieValues: [
                "a=1; Domain=other.com", "b=2; Domain=www.example.com", "c=3; Domain=ample.com",
                "d=4; Domain=com", "e=5; Domain=.com", "f=6; Domain=example.com.",
            ], from: url("https://example.com/"), now: Self.now)
        #expect(jar.all.isEmpty)
    }

    @Test func aSingleLabelDomainIsRefusedUnlessItIsTheHost() {
        var jar = store()
        jar.store(setCookieValues: ["a=1; Domain=localhost"], from: url("http://localhost/"), now: Self.now)
        #expect(jar.all.map(\.hostOnly) == [true])
        jar.store(setCookieValues: ["b=2; Domain=internal"], from: url("http://api.internal/"), now: Self.now)
        #expect(jar.all.count == 1)
    }

    @Test func anIPAddressHostGetsHostOnlyCookies() {
        var jar = store()
        jar.store(
            setCookieValues: ["a=1; Domain=127.0.0.1", "b=2; Domain=0.0.1", "c=3"],
            from: url("http://127.0.0.1:8080/"), now: Self.now)
        #expect(jar.all.map(\.name) == ["a", "c"])
        #expect(jar.all.allSatisfy { $0.hostOnly })
        #expect(header(&jar, "http://127.0.0.1:9090/") == "a=1; c=3")
        #expect(header(&jar, "http://10.127.0.0.1/") == nil)
        jar.store(setCookieValues: ["v6=1", "d=2; Domain=::1"], from: url("http://[::1]:80/"), now: Self.now)
        #expect(header(&jar, "http://[::1]/") == "v6=1; d=2")
    }

    @Test func domainMatching() {
        #expect(CookieStore.domainMatches("example.com", "example.com", hostIsIP: false))
        #expect(CookieStore.domainMatches("a.example.com", "example.com", hostIsIP: false))
        #expect(!CookieStore.domainMatches("aexample.com", "example.com", hostIsIP: false))
        #expect(!CookieStore.domainMatches("example.com", "a.example.com", hostIsIP: false))
        #expect(!CookieStore.domainMatches("1.2.3.4", "2.3.4", hostIsIP: true))
    }

    // MARK: Path

    @Test(arguments: [
        ("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("/a/b/c", "/a/b"), ("a/b", "/"),
        ("//", "/"),
    ])
    func defaultPath(_ path: String, _ expected: String) {
        #expect(CookieStore.defaultPath(path) == expected)
    }

    @Test(arguments: [
        ("/", "/", true), ("/a", "/", true), ("/a", "/a", true), ("/a/b", "/a", true), ("/ab", "/a", false),
        ("/a/b", "/a/", true), ("/a", "/a/", false), ("/b", "/a", false), ("/A", "/a", false),
    ])
    func pathMatching(_ request: String, _ cookie: String, _ matches: Bool) {
        #expect(CookieStore.pathMatches(request, cookie) == matches)
    }

    @Test func aPathCookieIsNotSentElsewhere() {
        var jar = store()
        jar.store(
            setCookieValues: ["a=1; Path=/a", "d=4"], from: url("https://example.com/docs/page"),
            now: Self.now)
        #expect(header(&jar, "https://example.com/a") == "a=1")
        #expect(header(&jar, "https://example.com/a/x?q=1") == "a=1")
        #expect(header(&jar, "https://example.com/b") == nil)
        #expect(header(&jar, "https://example.com/ab") == nil)
        // The default path of /docs/page is /docs.
        #expect(header(&jar, "https://example.com/docs/other") == "d=4")
    }

    // MARK: Expiry

    @Test func maxAgeWinsOverExpiresAndZeroOrLessDeletes() {
        var jar = store()
        let origin = url("https://example.com/")
        jar.store(
            setCookieValues: ["a=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: origin,
            now: Self.now)
        #expect(jar.all.first?.expires == Self.now.addingTimeInterval(60))
        #expect(header(&jar, "https://example.com/", at: Self.now.addingTimeInterval(59)) == "a=1")
        #expect(header(&jar, "https://example.com/", at: Self.now.addingTimeInterval(60)) == nil)
        #expect(jar.all.isEmpty, "an expired cookie is dropped on lookup")

        jar.store(setCookieValues: ["b=2", "c=3"], from: origin, now: Self.now)
        jar.store(setCookieValues: ["b=x; Max-Age=0", "c=y; Max-Age=-5"], from: origin, now: Self.now)
        #expect(jar.all.isEmpty)
        jar.store(
            setCookieValues: ["d=4", "d=5; Expires=Wed, 09 Dec 2009 16:27:23 GMT"], from: origin,
            now: Self.now)
        #expect(jar.all.isEmpty)
    }

    @Test func aLifetimeIsCappedAt400Days() {
        var jar = store()
        jar.store(
            setCookieValues: ["a=1; Max-Age=999999999999", "b=2; Expires=Fri, 31 Dec 9999 23:59:59 GMT"],
            from: url("https://example.com/"), now: Self.now)
        #expect(
            jar.all.map(\.expires) == Array(repeating: Self.now.addingTimeInterval(400 * 86_400), count: 2))
    }

    @Test func expiredCookiesAreDroppedOnStoreToo() {
        var jar = store((2, 3_000, 4_096))
        let origin = url("https://example.com/")
        jar.store(setCookieValues: ["old=1; Max-Age=10", "keep=2"], from: origin, now: Self.now)
        // The domain is full: the expired cookie goes first, not the oldest live one.
        jar.store(setCookieValues: ["new=3"], from: origin, now: Self.now.addingTimeInterval(20))
        #expect(jar.all.map(\.name) == ["keep", "new"])
    }

    // MARK: Replacement and order

    @Test func aReplacementKeepsTheCreationTime() {
        var jar = store()
        let origin = url("https://example.com/")
        jar.store(setCookieValues: ["a=1", "b=2"], from: origin, now: Self.now)
        let later = Self.now.addingTimeInterval(100)
        jar.store(setCookieValues: ["a=3; HttpOnly"], from: origin, now: later)
        #expect(jar.all.map(\.pair) == ["a=3", "b=2"])
        #expect(jar.all.first?.creation == Self.now)
        #expect(jar.all.first?.httpOnly == true)
        #expect(header(&jar, "https://example.com/") == "a=3; b=2")
        // Another path or a Domain cookie of the same name is another cookie.
        jar.store(setCookieValues: ["a=4; Path=/x", "a=5; Domain=example.com"], from: origin, now: later)
        #expect(jar.all.count == 4)
    }

    @Test func longerPathsFirstThenEarlierCreation() {
        var jar = store()
        let origin = url("https://example.com/")
        jar.store(setCookieValues: ["z=1"], from: origin, now: Self.now)
        jar.store(setCookieValues: ["deep=2; Path=/a/b"], from: origin, now: Self.now.addingTimeInterval(1))
        jar.store(setCookieValues: ["mid=3; Path=/a"], from: origin, now: Self.now.addingTimeInterval(2))
        jar.store(setCookieValues: ["y=4"], from: origin, now: Self.now.addingTimeInterval(3))
        #expect(header(&jar, "https://example.com/a/b/c") == "deep=2; mid=3; z=1; y=4")
        #expect(
            jar.cookies(for: url("https://example.com/a/b/c"), now: Self.now).map(\.name) == [
                "deep", "mid", "z", "y",
            ])
    }

    // MARK: Secure

    @Test func secureCookiesOnlyFromAndToHttps() {
        var jar = store()
        jar.store(setCookieValues: ["s=1; Secure"], from: url("http://example.com/"), now: Self.now)
        #expect(jar.all.isEmpty, "a Secure cookie set over http is ignored (RFC 6265bis)")
        jar.store(setCookieValues: ["s=1; Secure", "p=2"], from: url("https://example.com/"), now: Self.now)
        #expect(header(&jar, "https://example.com/") == "s=1; p=2")
        #expect(header(&jar, "http://example.com/") == "p=2")
        // http cannot overwrite or shadow the secure cookie either.
        jar.store(
            setCookieValues: ["s=evil", "s=evil2; Path=/deeper", "s=evil3; Domain=example.com"],
            from: url("http://example.com/"), now: Self.now)
        #expect(jar.all.map(\.pair) == ["s=1", "p=2"])
    }

    @Test func namePrefixes() {
        var jar = store()
        let origin = url("https://example.com/app/x")
        jar.store(
            setCookieValues: [
                "__Secure-a=1", "__Secure-b=2; Secure", "__Host-c=3; Secure; Path=/",
                "__Host-d=4; Secure", "__Host-e=5; Secure; Path=/; Domain=example.com", "__host-f=6; Path=/",
            ], from: origin, now: Self.now)
        #expect(jar.all.map(\.name) == ["__Secure-b", "__Host-c"])
    }

    // MARK: Limits

    @Test func theOldestOfADomainIsEvicted() {
        var jar = store((3, 3_000, 4_096))
        let origin = url("https://example.com/")
        for index in 0..<5 {
            jar.store(
                setCookieValues: ["c\(index)=\(index)"], from: origin,
                now: Self.now.addingTimeInterval(Double(index)))
        }
        #expect(jar.all.map(\.name) == ["c2", "c3", "c4"])
        #expect(jar.count == 3)
    }

    @Test func theOldestOfTheStoreIsEvicted() {
        var jar = store((50, 4, 4_096))
        for index in 0..<6 {
            jar.store(
                setCookieValues: ["c\(index)=\(index)"], from: url("https://h\(index).example.com/"),
                now: Self.now.addingTimeInterval(Double(index)))
        }
        #expect(jar.all.map(\.name) == ["c2", "c3", "c4", "c5"])
        #expect(jar.count == 4)
    }

    /// 10,000 fields in one response: bounded work (about 0.8 s in a debug build, several times
    /// that under the thread sanitizer; work growing with the square of the count would take
    /// minutes), and 50 cookies kept. Run on a thread of its own: seconds of CPU on one of Swift's
    /// two cooperative threads (2 cores) would starve the timing tests running beside it.
    @Test func tenThousandFieldsStayWithinTheLimits() async {
        let values = (0..<10_000).map { "n\($0)=\(String(repeating: "v", count: 100)); Domain=example.com" }
        let (names, count, elapsed) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var jar = CookieStore(perDomain: 50, total: 3_000, pairBytes: 4_096)
                let site = URL(string: "https://a.example.com/")!
                let elapsed = ContinuousClock().measure {
                    jar.store(setCookieValues: values, from: site, now: Self.now)
                }
                continuation.resume(returning: (jar.all.map(\.name), jar.count, elapsed))
            }
        }
        #expect(count == 50)
        #expect(names == (9_950..<10_000).map { "n\($0)" })
        #expect(elapsed < .seconds(20))
    }

    @Test func removeDomainTakesItsSubdomainsToo() {
        var jar = store()
        jar.store(setCookieValues: ["a=1"], from: url("https://api.example.com/"), now: Self.now)
        jar.store(setCookieValues: ["b=2"], from: url("https://example.com/"), now: Self.now)
        jar.store(setCookieValues: ["c=3"], from: url("https://example.org/"), now: Self.now)
        jar.remove(domain: ".Example.com")
        #expect(jar.all.map(\.name) == ["c"])
        #expect(jar.count == 1)
        jar.removeAll()
        #expect(jar.all.isEmpty && jar.count == 0)
    }

    @Test func theJarIsSafeToShareBetweenTasks() async {
        let jar = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: 20, cookies: 100))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let origin = URL(string: "https://h\(task).example.com/")!
                    for index in 0..<200 {
                        jar.store(setCookieValues: ["c\(index)=\(index); Domain=example.com"], from: origin)
                        _ = jar.cookies(for: origin)
                        if index % 50 == 0 { jar.remove(domain: "h\(task).example.com") }
                    }
                }
            }
        }
        #expect(jar.all.count <= 20)
        #expect(Set(jar.all.map(\.name)).count == jar.all.count)
    }

    @Test func refusedAndClampedLimits() {
        #expect(CookieJar(limits: CookieJar.Limits(cookies: 0)).problem?.code == .invalidValue)
        #expect(CookieJar(limits: CookieJar.Limits(nameAndValueBytes: -1)).problem?.code == .invalidValue)
        let refused = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: 0))
        refused.store(setCookieValues: ["a=1"], from: url("https://example.com/"))
        #expect(refused.all.isEmpty)
        let huge = CookieJar(
            limits: CookieJar.Limits(cookiesPerDomain: .max, cookies: .max, nameAndValueBytes: .max))
        #expect(huge.problem == nil)
        huge.store(
            setCookieValues: ["a=" + String(repeating: "x", count: 2 << 20)],
            from: url("https://example.com/"))
        #expect(huge.all.isEmpty, "clamped to 1 MiB per name and value")
    }

    @Test func onlyHttpAndHttpsURLs() {
        var jar = store()
        jar.store(setCookieValues: ["a=1"], from: url("ftp://example.com/"), now: Self.now)
        jar.store(setCookieValues: ["a=1"], from: url("file:///tmp/x"), now: Self.now)
        #expect(jar.all.isEmpty)
        jar.store(setCookieValues: ["a=1"], from: url("https://example.com/"), now: Self.now)
        #expect(header(&jar, "ws://example.com/") == nil)
    }
}
