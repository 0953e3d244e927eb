import Foundation
import Testing

@testable import NetLayer

/// The cache key: a normalised URI and a credential partition (DESIGN §17, RFC 9111 §2).
@Suite("Caching: keys and credential partitions")
struct CachingKeyTests {
    private typealias F = CachingFixture
    private let salt = CredentialPartition.Salt(bytes: Array(repeating: 7, count: 32))

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func sha256MatchesTheFIPSVectors() {
        #expect(
            hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
        #expect(
            hex(
                SHA256.authenticationCode(
                    key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(
                SHA256.authenticationCode(
                    key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hex(
                SHA256.authenticationCode(
                    key: Array(repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theURIKeyIsNormalisedAndMethodIndependent_rfc9111_2() throws {
        func uri(_ text: String) throws -> String { CacheKey.uri(for: try #require(URL(string: text))) }
        #expect(try uri("HTTPS://API.Example:443/a?b=1#frag") == "https://api.example/a?b=1")
        #expect(try uri("http://api.example") == "http://api.example/")
        #expect(try uri("http://api.example:8080/a") == "http://api.example:8080/a")
        // query-args-different (required): the query is part of the key.
        #expect(try uri("https://api.example/a?b=1") != uri("https://api.example/a?b=2"))
        #expect(try uri("https://api.example/A") != uri("https://api.example/a"))
    }

    @Test func requestsWithoutCredentialsShareTheAnonymousPartition() {
        let partition = CredentialPartition(
            headers: F.fields(("Accept", "*/*")), redaction: Redaction(), salt: salt)
        #expect(partition == .anonymous)
        #expect(partition.isAnonymous)
    }

    @Test(.tags(.hardening)) func differentCredentialsNeverShareAPartition_design17() {
        func partition(_ pairs: (String, String)...) -> CredentialPartition {
            CredentialPartition(
                headers: HeaderFields(received: pairs.map { ($0.0, $0.1) }), redaction: Redaction(),
                salt: salt)
        }
        let alice = partition(("Authorization", "Bearer alice"))
        #expect(alice.digest.count == 64)
        #expect(alice == partition(("authorization", "Bearer alice"), ("Accept", "x")))
        #expect(alice != partition(("Authorization", "Bearer bob")))
        #expect(alice != partition(("Authorization", "Bearer alice"), ("Cookie", "s=1")))
        #expect(partition(("Cookie", "s=1")) != partition(("Cookie", "s=2")))
        #expect(partition(("Proxy-Authorization", "Basic x")) != .anonymous)
        // Framing: moving bytes between name and value, or between two lines, changes the digest.
        #expect(partition(("Cookie", "a"), ("Cookie", "b")) != partition(("Cookie", "ab")))
        #expect(partition(("Cookie", "a"), ("Cookie", "b")) != partition(("Cookie", "b"), ("Cookie", "a")))
        // Field order across names does not matter.
        #expect(
            partition(("Cookie", "c"), ("Authorization", "t"))
                == partition(("Authorization", "t"), ("Cookie", "c")))
    }

    @Test func theResourcesSecretHeadersPartitionToo() throws {
        let redaction = Redaction()
        #expect(redaction.isSecret("X-API-Key"))
        let one = CredentialPartition(
            headers: F.fields(("X-API-Key", "k1")), redaction: redaction, salt: salt)
        let two = CredentialPartition(
            headers: F.fields(("X-API-Key", "k2")), redaction: redaction, salt: salt)
        #expect(!one.isAnonymous && one != two)
    }

    @Test(.tags(.hardening)) func credentialFieldsPartitionEvenWhenNothingIsRedacted() {
        let headers = F.fields(("Authorization", "Bearer a"))
        let partition = CredentialPartition(headers: headers, redaction: .none, salt: salt)
        #expect(!partition.isAnonymous)
        #expect(partition == CredentialPartition(headers: headers, redaction: Redaction(), salt: salt))
    }

    @Test(.tags(.hardening)) func entryDigestsHideTheURIAndTheCredentials() throws {
        let url = try #require(URL(string: "https://api.example/a?api_key=s3cr3t"))
        let alice = CacheKey(
            url: url, headers: F.fields(("Authorization", "Bearer alice")), redaction: Redaction(), salt: salt
        )
        let bob = CacheKey(
            url: url, headers: F.fields(("Authorization", "Bearer bob")), redaction: Redaction(), salt: salt)
        #expect(alice.digest(salt: salt).count == 64)
        #expect(!alice.digest(salt: salt).contains("s3cr3t"))
        #expect(alice.digest(salt: salt) != bob.digest(salt: salt))
        #expect(alice.digest(salt: salt) == alice.digest(salt: salt))
        #expect(alice.digest(salt: salt) != alice.digest(salt: .init(bytes: [9])))
        // One URI digest for every partition, for invalidation.
        #expect(CacheKey.uriDigest(alice.uri, salt: salt) == CacheKey.uriDigest(bob.uri, salt: salt))
        #expect(
            CacheKey.uriDigest(alice.uri, salt: salt)
                != CacheKey.uriDigest("https://api.example/b", salt: salt))
    }

    @Test func theDigestDependsOnTheSaltAndHidesTheValue() throws {
        let headers = F.fields(("Authorization", "Bearer secret-token"))
        let salted = CredentialPartition(headers: headers, redaction: Redaction(), salt: salt)
        let other = CredentialPartition(
            headers: headers, redaction: Redaction(), salt: .init(bytes: [1, 2, 3]))
        #expect(salted != other)
        #expect(!salted.digest.contains("secret"))
        #expect(CredentialPartition.Salt.process.bytes.count == 32)
        #expect(CredentialPartition.Salt.random() != CredentialPartition.Salt.random())
        let url = try #require(URL(string: "https://api.example/a"))
        let key = CacheKey(url: url, headers: headers, redaction: Redaction(), salt: salt)
        #expect(key == CacheKey(uri: "https://api.example/a", partition: salted))
    }

    /// The quick path of `uri(for:)` gives what the general one gives, or leaves the URL to it.
    @Test func theQuickURIAgreesWithTheGeneralOne() throws {
        let texts = [
            "HTTP://Example.COM:80/a?b=1#frag", "https://a.example:443", "http://127.0.0.1:8080/x?y",
            "https://a.example/p%20q?x=%2F", "http://a.example?q", "https://A.example:8443/#only",
            "http://a.example:/x",
        ]
        for text in texts {
            let url = try #require(URL(string: text))
            #expect(CacheKey.quickURI(url.absoluteString) == CacheKey.parsedURI(for: url), "\(text)")
        }
        #expect(CacheKey.quickURI("http://user:pw@a.example/") == nil)
        #expect(CacheKey.quickURI("http://[::1]:80/") == nil)
        #expect(CacheKey.quickURI("mailto:a@example.com") == nil)
    }
}
