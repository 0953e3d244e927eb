import Foundation
import Testing

@testable import NetLayer

/// Selecting a stored response by its `Vary` (RFC 9111 §4.1).
@Suite("Caching: Vary")
struct CachingVaryTests {
    private typealias F = CachingFixture

    private func key(vary: String..., request: HeaderFields) -> VaryKey? {
        VaryKey(responseHeaders: HeaderFields(received: vary.map { ("Vary", $0) }), requestHeaders: request)
    }

    @Test func namesAreCaseInsensitiveListedOnceAcrossLines() {
        #expect(
            VaryKey.parse(F.fields(("Vary", "Accept-Encoding, accept-encoding"), ("vary", "Foo")))
                == .names(["accept-encoding", "foo"]))
        #expect(VaryKey.parse(HeaderFields()) == .names([]))
        #expect(VaryKey.parse(F.fields(("Vary", ""))) == .names([]))
    }

    /// cache-tests `vary-normalise-lang-select` (optimal): the stored response's language is the one
    /// the new request prefers most.
    @Test func aStoredLanguageTheNewRequestPrefersMostIsSelected_rfc9111_4_1() throws {
        let stored = try #require(
            key(vary: "Accept-Language", request: F.fields(("Accept-Language", "en, de"))))
        let prefersGerman = F.fields(("Accept-Language", "fr;q=0.5, de;q=1.0"))
        #expect(stored.matches(prefersGerman, contentLanguage: "de"))
        #expect(!stored.matches(prefersGerman))
        #expect(!stored.matches(F.fields(("Accept-Language", "fr, de;q=0.9")), contentLanguage: "de"))
        #expect(!stored.matches(F.fields(("Accept-Language", "de;q=0")), contentLanguage: "de"))
        #expect(!stored.matches(F.fields(("Accept-Language", "*")), contentLanguage: "de"))
        #expect(!stored.matches(HeaderFields(), contentLanguage: "de"))
    }

    @Test func starAnywhereNeverMatches_rfc9111_4_1() {
        // cache-tests vary-syntax-star, -star-star, -star-star-lines, -empty-star, -empty-star-lines,
        // -star-foo, -foo-star (all required).
        for lines in [["*"], ["*, *"], ["*", "*"], [", *"], ["", "*"], ["*, Foo"], ["Foo, *"]] {
            let headers = HeaderFields(received: lines.map { ("Vary", $0) })
            #expect(VaryKey.parse(headers) == .star, "\(lines)")
            #expect(VaryKey(responseHeaders: headers, requestHeaders: HeaderFields()) == nil)
        }
    }

    @Test func aRequestMatchesWithTheSameSelectingValues_rfc9111_4_1() {
        let stored = key(vary: "Foo, Bar", request: F.fields(("foo", "1"), ("Bar", "2"), ("Other", "x")))
        #expect(stored?.matches(F.fields(("FOO", "1"), ("bar", "2"))) == true)  // vary-2-match
        #expect(stored?.matches(F.fields(("Foo", "1"), ("Bar", "3"))) == false)  // vary-2-no-match
        #expect(stored?.matches(F.fields(("Foo", "1"))) == false)  // vary-2-match-omit
        // vary-3-order: the order of the request's fields is free.
        #expect(stored?.matches(F.fields(("Bar", "2"), ("Foo", "1"))) == true)
    }

    @Test func anAbsentFieldOnlyMatchesAnAbsentField() {
        // vary-omit-stored, vary-omit (required).
        let withoutFoo = key(vary: "Foo", request: HeaderFields())
        #expect(withoutFoo?.matches(HeaderFields()) == true)
        #expect(withoutFoo?.matches(F.fields(("Foo", "1"))) == false)
        #expect(key(vary: "Foo", request: F.fields(("Foo", "1")))?.matches(HeaderFields()) == false)
        // Present but empty is not absent.
        #expect(key(vary: "Foo", request: F.fields(("Foo", "")))?.matches(HeaderFields()) == false)
    }

    @Test func valuesAreNormalisedByCombiningLinesAndTrimmingMembers() {
        // vary-normalise-combine, vary-normalise-space ("optimal").
        let stored = key(vary: "Foo", request: F.fields(("Foo", "1, 2")))
        #expect(stored?.matches(F.fields(("Foo", "1"), ("Foo", "2"))) == true)
        #expect(stored?.matches(F.fields(("Foo", " 1 ,  2 "))) == true)
        #expect(stored?.matches(F.fields(("Foo", "2, 1"))) == false)
        // Elsewhere case counts.
        #expect(stored?.matches(F.fields(("foo", "1, 2"))) == true)
        #expect(key(vary: "X", request: F.fields(("X", "a")))?.matches(F.fields(("X", "A"))) == false)
        // A comma inside a quoted-string is not a member boundary.
        #expect(VaryKey.normalisedValue(of: "x", in: F.fields(("X", #"a, "b , c""#))) == #"a,"b , c""#)
    }

    @Test func acceptLanguageAndEncodingIgnoreCaseOrderAndSpaces() {
        // vary-normalise-lang-order, -lang-case, -lang-space ("optimal").
        let stored = key(vary: "Accept-Language", request: F.fields(("Accept-Language", "en, de")))
        #expect(stored?.matches(F.fields(("Accept-Language", "de, en"))) == true)
        #expect(stored?.matches(F.fields(("Accept-Language", "eN, De"))) == true)
        #expect(stored?.matches(F.fields(("Accept-Language", " en ,   de"))) == true)
        #expect(stored?.matches(F.fields(("Accept-Language", "en, fr"))) == false)
        // A weight stays with its member.
        let weighted = key(vary: "Accept-Encoding", request: F.fields(("Accept-Encoding", "gzip;q=0.5, br")))
        #expect(weighted?.matches(F.fields(("accept-encoding", "BR, gzip; q=0.5"))) == true)
        #expect(weighted?.matches(F.fields(("accept-encoding", "br;q=0.5, gzip"))) == false)
    }

    @Test(.tags(.hardening)) func aVaryOfTenThousandNamesIsRefusedInOneScan() {
        let names = (0..<10_000).map { "Header-\($0)" }.joined(separator: ", ")
        #expect(VaryKey.parse(F.fields(("Vary", names))) == .invalid)
        let atTheBound = (0..<VaryKey.maximumNames).map { "H\($0)" }.joined(separator: ",")
        guard case .names(let kept) = VaryKey.parse(F.fields(("Vary", atTheBound))) else {
            Issue.record("a Vary at the bound is usable")
            return
        }
        #expect(kept.count == VaryKey.maximumNames)
    }

    @Test(.tags(.hardening)) func nonASCIINamesAndValuesAreHandled() {
        #expect(VaryKey.parse(F.fields(("Vary", "Föö"))) == .invalid)
        let stored = key(vary: "X-Name", request: F.fields(("X-Name", "Zoë 🙂")))
        #expect(stored?.matches(F.fields(("x-name", "Zoë 🙂"))) == true)
        #expect(stored?.matches(F.fields(("x-name", "Zoe 🙂"))) == false)
    }
}
