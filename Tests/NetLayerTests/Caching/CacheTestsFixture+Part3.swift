// Fixture data ported from http-tests/cache-tests (see CacheTestsFixture.swift): cases
// ccreq-ma1 … headers-store-X-XSS-Protection.

extension CacheTestsFixture {
    static let casesC: [SuiteCase] = [
        SuiteCase(
            id: "ccreq-ma1", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Cache-Control", .text("max-age=1"))], pause: true, cached: false),
        SuiteCase(
            id: "ccreq-magreaterage", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=100000")), ("Date", .offset(0)), ("Age", .text("1800")),
            ],
            next: [("Cache-Control", .text("max-age=600"))], pause: true, cached: false),
        SuiteCase(
            id: "ccreq-max-stale", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=2")), ("Date", .offset(0)), ("Template-A", .text("1")),
            ],
            next: [("Cache-Control", .text("max-stale=1000"))], pause: true, cached: true),
        SuiteCase(
            id: "ccreq-max-stale-age", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500")), ("Age", .text("2000"))],
            next: [("Cache-Control", .text("max-stale=1000"))], pause: false, cached: true),
        SuiteCase(
            id: "ccreq-min-fresh", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500"))],
            next: [("Cache-Control", .text("min-fresh=2000"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-min-fresh-age", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500")), ("Age", .text("1000"))],
            next: [("Cache-Control", .text("min-fresh=1000"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600"))],
            next: [("Cache-Control", .text("no-cache"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-no-store", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Cache-Control", .text("no-store"))], pause: true, cached: false),
        SuiteCase(
            id: "pragma-request-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Pragma", .text("no-cache"))], pause: true, cached: true),
        SuiteCase(
            id: "pragma-request-extension", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Pragma", .text("unrecognised-extension"))], pause: true, cached: true),
        SuiteCase(
            id: "pragma-response-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600")), ("Pragma", .text("no-cache"))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "pragma-response-no-cache-heuristic", kind: .check, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Last-Modified", .offset(-10000)), ("Pragma", .text("no-cache")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "pragma-response-extension", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=3600")), ("Pragma", .text("unrecognised-extension")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "vary-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("2"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-omit-stored", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-omit", kind: .required, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "vary-cache-key", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Other", .text("2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1")), ("Other", .text("3"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-2-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [("Foo", .text("1")), ("Bar", .text("abc"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-2-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [("Foo", .text("2")), ("Bar", .text("abc"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-2-match-omit", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "vary-3-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))], pause: false,
            cached: true),
        SuiteCase(
            id: "vary-3-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("2")), ("Bar", .text("abc")), ("Baz", .text("789"))], pause: false,
            cached: false),
        SuiteCase(
            id: "vary-3-order", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789")), ("Bar", .text("abcde"))], pause: false,
            cached: false),
        SuiteCase(
            id: "vary-3-omit", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Date", .offset(0)),
                ("Last-Modified", .offset(-3000)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-normalise-combine", kind: .optimal, status: 200,
            request: [("Foo", .text("1, 2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1")), ("Foo", .text("2"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-order", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text("de, en"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-case", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text("eN, De"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-space", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text(" en ,   de"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-select", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")), ("Content-Language", .text("de")),
            ],
            next: [("Accept-Language", .text("fr;q=0.5, de;q=1.0"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-space", kind: .optimal, status: 200,
            request: [("Foo", .text("1,2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text(" 1, 2 "))], pause: false, cached: true),
        SuiteCase(
            id: "vary-syntax-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*, *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-star-lines", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-empty-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text(", *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-empty-star-lines", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("")), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-foo", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*, Foo")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-foo-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "headers-omit-headers-listed-in-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=100000")), ("Date", .offset(0)),
                ("Connection", .text("a, b")), ("a", .text("1")), ("b", .text("2")), ("c", .text("3")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Test-Header", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Test-Header", .text("aywusqomkigecay")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Test-Header", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Test-Header", .text("abcdefghijklmno")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Foo", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Foo", .text("auoicwqkeysmgau")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Content-Foo", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Content-Foo", .text("axurolifczwtqnk")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Cache-Control", kind: .required, status: 200,
            request: [],
            response: [("Date", .offset(0)), ("Cache-Control", .text("max-age=3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Connection", .text("askcumewogyqias")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Encoding", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Encoding", .text("apetixmbqfujync")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Length", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Length", .text("10")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Location", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Location", .text("/bar")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-MD5", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-MD5", .text("N7UdGUp1E+RbVvZSTy1R8g==")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Range", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Range", .text("ananananananana")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Security-Policy", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)),
                ("Content-Security-Policy", .text("default-src 'self' cdn.example.com")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Type", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Type", .text("text/plain;charset=utf-8")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Clear-Site-Data", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Clear-Site-Data", .text("cookies")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-ETag", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("ETag", .text("\"ghijkl\"")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Expires", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Expires", .text("Mon, 11 Jan 2038 11:11:11 GMT")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Keep-Alive", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Keep-Alive", .text("ananananananana")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authenticate", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authenticate", .text("akueoyiscmwgqak")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authentication-Info", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authentication-Info", .text("aaaaaaaaaaaaaaa")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authorization", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authorization", .text("aaaaaaaaaaaaaaa")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Connection", .text("alwhsdozkvgrcny")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Public-Key-Pins", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Public-Key-Pins", .text("askcumewogyqias")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Set-Cookie", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Set-Cookie", .text("a=c")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Set-Cookie2", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Set-Cookie2", .text("a=c")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-TE", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("TE", .text("apetixmbqfujync")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Transfer-Encoding", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Transfer-Encoding", .text("arizqhypgxofwne")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Upgrade", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Upgrade", .text("acegikmoqsuwyac")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Frame-Options", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Frame-Options", .text("sameorigin")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-XSS-Protection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-XSS-Protection", .text("1; mode=block")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
    ]
}
