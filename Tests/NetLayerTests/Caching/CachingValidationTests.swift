import Foundation
import Testing

@testable import NetLayer

/// Conditional requests and the 304 update (RFC 9111 §3.2, §4.3.1, §4.3.4).
@Suite("Caching: validation and the 304 update")
struct CachingValidationTests {
    private typealias F = CachingFixture
    private let lastModified = "Wed, 01 Jan 2020 00:00:00 GMT"

    private func conditional(_ stored: HeaderFields...) -> [String] {
        CacheValidation.conditionalHeaders(for: stored).map { "\($0.name): \($0.value)" }
    }

    @Test func ifNoneMatchCarriesEveryStoredETag_rfc9111_4_3_1() {
        // conditional-etag-strong-generate, -weak-generate-weak ("optimal"); all variants' tags:
        // conditional-etag-vary-headers-mismatch ("check").
        #expect(
            conditional(F.fields(("ETag", #""abc""#), ("Last-Modified", lastModified))) == [
                #"If-None-Match: "abc""#
            ])
        #expect(conditional(F.fields(("ETag", #"W/"abc""#))) == [#"If-None-Match: W/"abc""#])
        #expect(
            conditional(
                F.fields(("ETag", #""a""#)), F.fields(("ETag", #"W/"b""#)), F.fields(("ETag", #""a""#)))
                == [#"If-None-Match: "a", W/"b""#])
        // An unquoted tag is not an entity-tag (conditional-etag-strong-generate-unquoted, "check").
        #expect(conditional(F.fields(("ETag", "abc"))) == [])
    }

    @Test func ifModifiedSinceComesFromLastModifiedOnly_rfc9111_4_3_1() {
        // conditional-lm-* (browser-skipped; optimal).
        #expect(
            conditional(F.fields(("Last-Modified", lastModified), ("Date", F.httpDate(F.t0))))
                == ["If-Modified-Since: " + lastModified])
        #expect(conditional(F.fields(("Date", F.httpDate(F.t0)))) == [])
        #expect(conditional(F.fields(("Last-Modified", "not a date"))) == [])
    }

    @Test(.tags(.hardening)) func ifNoneMatchIsBounded() {
        let stored = (0..<1000).map { F.fields(("ETag", "\"v\($0)\"")) }
        let value = CacheValidation.conditionalHeaders(for: stored).first?.value ?? ""
        #expect(value.split(separator: ",").count == CacheValidation.maximumETags)
    }

    @Test func aStrongETagSelectsEveryStoredResponseWithThatTag_rfc9111_4_3_4() {
        let stored = [F.fields(("ETag", #""a""#)), F.fields(("ETag", #""b""#)), F.fields(("ETag", #""a""#))]
        #expect(CacheValidation.selectedForUpdate(by: F.fields(("ETag", #""a""#)), among: stored) == [0, 2])
        #expect(CacheValidation.selectedForUpdate(by: F.fields(("ETag", #""c""#)), among: stored) == [])
        // A strong tag never matches a stored weak one.
        #expect(
            CacheValidation.selectedForUpdate(
                by: F.fields(("ETag", #""a""#)), among: [F.fields(("ETag", #"W/"a""#))]) == [])
    }

    @Test func aWeakValidatorSelectsTheMostRecentMatch_rfc9111_4_3_4() {
        let stored = [
            F.fields(("ETag", #""a""#), ("Last-Modified", lastModified)), F.fields(("ETag", #"W/"a""#)),
            F.fields(("Last-Modified", lastModified)),
        ]
        #expect(CacheValidation.selectedForUpdate(by: F.fields(("ETag", #"W/"a""#)), among: stored) == [1])
        // 304-lm-use-stored-Test-Header (required): a Last-Modified selects.
        #expect(
            CacheValidation.selectedForUpdate(by: F.fields(("Last-Modified", lastModified)), among: stored)
                == [2])
        #expect(
            CacheValidation.selectedForUpdate(
                by: F.fields(("Last-Modified", "Thu, 02 Jan 2020 00:00:00 GMT")), among: stored) == [])
    }

    @Test func noValidatorSelectsTheOnlyStoredResponseWithoutOne_rfc9111_4_3_4() {
        #expect(CacheValidation.selectedForUpdate(by: HeaderFields(), among: [HeaderFields()]) == [0])
        #expect(
            CacheValidation.selectedForUpdate(by: HeaderFields(), among: [HeaderFields(), HeaderFields()])
                == [])
        #expect(
            CacheValidation.selectedForUpdate(by: HeaderFields(), among: [F.fields(("ETag", #""a""#))]) == [])
    }

    @Test func the304ReplacesStoredFieldsButContentLengthAndTheBodysFraming_rfc9111_3_2() {
        // 304-etag-update-response-* (update304.mjs): Cache-Control, ETag, Expires, Set-Cookie, X-*
        // are updated (required for Test-Header, X-Test-Header, Content-Foo, Cache-Control);
        // Content-Length must not be (required); Content-Type/-Encoding/-Range are kept ("check").
        let stored = F.fields(
            ("Content-Length", "36"), ("Content-Type", "text/plain"), ("Content-Encoding", "gzip"),
            ("Cache-Control", "max-age=1"), ("Test-Header", "A"), ("Set-Cookie", "a=b"),
            ("Set-Cookie", "c=d"),
            ("X-Untouched", "1"))
        let notModified = F.fields(
            ("content-length", "10"), ("Content-Type", "text/plain;charset=utf-8"),
            ("Content-Encoding", "br"),
            ("Cache-Control", "max-age=3600"), ("test-header", "B"), ("Set-Cookie", "a=c"),
            ("Connection", "close"),
            ("Keep-Alive", "timeout=5"), ("Content-Foo", "new"))
        let updated = CacheValidation.updatedHeaders(stored, with: notModified)
        #expect(updated["Content-Length"] == "36")
        #expect(updated["Content-Type"] == "text/plain")
        #expect(updated["Content-Encoding"] == "gzip")
        #expect(updated.values(for: "Cache-Control") == ["max-age=3600"])
        #expect(updated.values(for: "Test-Header") == ["B"])
        #expect(updated.values(for: "Set-Cookie") == ["a=c"])
        #expect(updated["Content-Foo"] == "new")
        #expect(updated["X-Untouched"] == "1")
        #expect(updated["Connection"] == nil && updated["Keep-Alive"] == nil)
    }

    @Test func aNoCacheFieldListBroughtBy304AppliesToTheUpdatedHead_rfc9111_5_2_2_4() {
        let stored = F.fields(("Cache-Control", "max-age=60"), ("X-Private", "1"), ("ETag", #""a""#))
        let notModified = F.fields(("Cache-Control", #"max-age=60, no-cache="X-Private""#), ("ETag", #""a""#))
        let updated = CacheValidation.updatedHeaders(stored, with: notModified)
        #expect(updated["X-Private"] == nil)
        #expect(updated.values(for: "Cache-Control") == [#"max-age=60, no-cache="X-Private""#])
        #expect(updated["ETag"] == #""a""#)
    }

    @Test func aHEADResponseFreshensOnlyWithMatchingValidatorsAndLength_rfc9111_4_3_5() {
        let stored = F.fields(("ETag", #""a""#), ("Last-Modified", lastModified), ("Content-Length", "10"))
        #expect(CacheValidation.headResponseFreshens(F.fields(("ETag", #""a""#)), stored: stored))
        #expect(
            CacheValidation.headResponseFreshens(
                F.fields(("Last-Modified", lastModified), ("Content-Length", "10")), stored: stored))
        #expect(!CacheValidation.headResponseFreshens(F.fields(("ETag", #""b""#)), stored: stored))
        #expect(
            !CacheValidation.headResponseFreshens(
                F.fields(("ETag", #""a""#), ("Content-Length", "11")), stored: stored))
        #expect(!CacheValidation.headResponseFreshens(F.fields(("Content-Length", "10")), stored: stored))
        #expect(!CacheValidation.headResponseFreshens(F.fields(("ETag", #""a""#)), stored: HeaderFields()))
    }

    @Test func entityTagsParseStrictly_rfc9110_8_8_3() {
        #expect(EntityTag(parsing: #" "x" "#)?.opaque == #""x""#)
        #expect(EntityTag(parsing: #"W/"x""#)?.isWeak == true)
        for bad in ["x", #"w/"x""#, #""x"#, #""a"b""#, #""a", "b""#, "", #"W/"#] {
            #expect(EntityTag(parsing: bad) == nil, "\(bad)")
        }
        #expect(EntityTag(parsing: "\"caf\u{E9}\"") != nil)  // obs-text is allowed
    }
}
