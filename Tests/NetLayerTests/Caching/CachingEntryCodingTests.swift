import Foundation
import Testing

@testable import NetLayer

/// Issue 28: a stored entry as bytes (``HTTPCacheEntry/encoded()``), which a store writes down and
/// reads back; whatever the bytes, reading them back is an entry equal to the one written or a
/// typed error, never a crash or another entry.
@Suite("Caching: an entry written down and read back")
struct CachingEntryCodingTests {
    static func entry(body: String = "{\"id\":1}", vary: [VaryKey.Field] = []) -> HTTPCacheEntry {
        HTTPCacheEntry(
            stored: StoredResponse(
                status: 200,
                headers: CachingFixture.fields(
                    ("Content-Type", "application/json"), ("ETag", "\"v1\""), ("Cache-Control", "max-age=60"),
                    ("X-Greeting", "grüße"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")),
                requestTime: CachingFixture.at(0.25), responseTime: CachingFixture.at(0.5),
                vary: VaryKey(fields: vary)),
            body: Data(body.utf8))
    }

    @Test func anEntryReadsBackAsItWasWritten() throws {
        let vary = [
            VaryKey.Field(name: "accept-language", value: "de,en"),
            VaryKey.Field(name: "x-absent", value: nil),
        ]
        for original in [Self.entry(), Self.entry(body: "", vary: vary)] {
            let decoded = try HTTPCacheEntry(encoded: original.encoded())
            #expect(decoded == original)
            #expect(decoded.headerFields.values(for: "Set-Cookie") == ["a=1", "b=2"])
            #expect(decoded.receivedAt == CachingFixture.at(0.5))
        }
    }

    @Test(.tags(.hardening)) func everyTruncationAndEveryChangedByteIsRefused() {
        let bytes = [UInt8](Self.entry().encoded())
        for length in 0..<bytes.count {
            #expect(throws: NetLayerError.self) { try HTTPCacheEntry(encoded: Data(bytes.prefix(length))) }
        }
        #expect(throws: NetLayerError.self) { try HTTPCacheEntry(encoded: Data(bytes + [0])) }
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x20
            #expect(throws: NetLayerError.self) { try HTTPCacheEntry(encoded: Data(changed)) }
        }
    }

    /// Bytes with a valid checksum but values no server sent: each refused with its reason.
    @Test(.tags(.hardening)) func wellFormedBytesWithValuesOutOfRangeAreRefused() {
        func sealed(_ build: (inout EntryWriter) -> Void) -> Data {
            var writer = EntryWriter()
            writer.bytes = HTTPCacheEntry.magic + [HTTPCacheEntry.version]
            build(&writer)
            writer.integer(Checksum.of(writer.bytes))
            return Data(writer.bytes)
        }
        func head(_ writer: inout EntryWriter, status: UInt16 = 200, time: Double = 0) {
            writer.integer(status)
            writer.integer(time.bitPattern)
            writer.integer(time.bitPattern)
        }
        let cases: [(String, Data)] = [
            ("status", sealed { head(&$0, status: 42) }),
            ("not finite", sealed { head(&$0, time: .nan) }),
            (
                "Vary",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(10_000))
                }
            ),
            (
                "header field",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(0))
                    $0.integer(UInt32(1))
                    $0.string("Bad Name")
                    $0.string("v")
                }
            ),
            (
                "header field",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(0))
                    $0.integer(UInt32(1))
                    $0.string("X-Split")
                    $0.string("a\r\nSet-Cookie: evil=1")
                }
            ),
            (
                "invalid UTF-8 in a header field",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(0))
                    $0.integer(UInt32(1))
                    $0.string("X-Name")
                    $0.integer(UInt32(2))
                    $0.bytes += [0xC3, 0x28]
                }
            ),
            (
                "header count past the end, field",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(0))
                    $0.integer(UInt32.max)
                }
            ),
            (
                "body length",
                sealed {
                    head(&$0)
                    $0.integer(UInt16(0))
                    $0.integer(UInt32(0))
                    $0.integer(UInt64.max)
                }
            ),
        ]
        for (reason, bytes) in cases {
            do {
                _ = try HTTPCacheEntry(encoded: bytes)
                Issue.record("\(reason): decoded")
            } catch {
                #expect(error.code == .decodingFailed)
                #expect(error.message.contains(reason.split(separator: " ").last.map(String.init) ?? reason))
            }
        }
    }

    @Test(.tags(.hardening)) func randomBytesAfterTheMagicNeverDecode() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<200, using: &generator)
            let noise = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            #expect(throws: NetLayerError.self) {
                try HTTPCacheEntry(encoded: Data(HTTPCacheEntry.magic + [HTTPCacheEntry.version] + noise))
            }
        }
    }

    /// A credential named by `Vary` is never written down: the key's partition stands for it.
    @Test func credentialsNamedByVaryAreNotWritten() throws {
        let stored = StoredResponse(
            status: 200, headers: CachingFixture.fields(("Vary", "Authorization, X-Api-Key, Accept")),
            requestTime: CachingFixture.t0, responseTime: CachingFixture.t0,
            vary: VaryKey(fields: [
                .init(name: "authorization", value: "Bearer s3cr3t-token"),
                .init(name: "x-api-key", value: "k3y-value"),
                .init(name: "accept", value: "application/json"),
            ]))
        // `X-Api-Key` is secret by the default redaction's `api-key` fragment.
        let entry = HTTPCacheEntry(stored: stored.withoutCredentialFields(redaction: .default), body: Data())
        let text = String(decoding: entry.encoded(), as: UTF8.self)
        #expect(!text.contains("s3cr3t-token") && !text.contains("k3y-value"))
        #expect(entry.stored.vary.fields.map(\.name) == ["accept"])
    }
}
