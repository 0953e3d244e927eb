import Foundation
import Testing

@testable import NetLayer

/// The fast paths of request preparation (merged params without hashing, the URL written in one
/// pass into a stack buffer, byte-level path filling) against the plain ways they replace.
@Suite("Preparation fast paths")
struct PreparationFastPathTests {
    /// The plain merge: dictionaries, a later level winning per key, keys then sorted in byte order.
    private func reference(_ levels: [Params]) -> FormEncoder.Entries {
        var merged: [String: ParamValue] = [:]
        for level in levels { for (key, value) in level { merged[key] = value.paramValue } }
        return FormEncoder.sortedEntries(merged)
    }

    private func merged(_ defaults: Params, _ target: Params, _ call: Params) -> FormEncoder.Entries {
        FormEncoder.merged(defaults: mergeParams(defaults), target: mergeParams(target), call: call)
    }

    private func same(_ lhs: FormEncoder.Entries, _ rhs: FormEncoder.Entries) -> Bool {
        lhs.count == rhs.count
            && zip(lhs, rhs).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && $0.value == $1.value }
    }

    @Test func laterLevelWinsAndNilRemovesAnEarlierValue() {
        let none: String? = nil
        let result = merged(["a": 1, "b": 2, "c": 3], ["b": "t", "d": 4], ["c": none, "a": "call"])
        #expect(
            same(
                result,
                reference([["a": 1, "b": 2, "c": 3], ["b": "t", "d": 4], ["c": none, "a": "call"]])))
        #expect(FormEncoder(options: .default).encode(sorted: result) == "a=call&b=t&d=4")
    }

    @Test func keysSharingLongPrefixesSortByTheirWholeBytes() {
        // Equal first 8 bytes, NUL bytes and prefixes of one another.
        let call: Params = [
            "abcdefgh2": 1, "abcdefgh1": 2, "abcdefgh": 3, "abcdefg": 4, "ab\u{0}c": 5, "ab": 6, "ab\u{0}": 7,
            "B": 8, "a": 9, "~": 10, "": 11,
        ]
        let defaults: Params = ["abcdefgh1": "d", "zz": "d"]
        #expect(same(merged(defaults, [:], call), reference([defaults, call])))
    }

    @Test func nonASCIIKeysMergeAsSwiftStringsDo() {
        // "é" precomposed and decomposed are one dictionary key: the call level's value wins, as
        // it always did.
        let result = merged(["caf\u{E9}": "default", "z": 1], [:], ["cafe\u{301}": "call", "\u{212A}": 2])
        #expect(
            same(
                result,
                reference([["caf\u{E9}": "default", "z": 1], ["cafe\u{301}": "call", "\u{212A}": 2]])))
        #expect(result.count == 3)
    }

    @Test func manyKeysTakeTheGeneralSort() {
        var defaults: Params = [:]
        var call: Params = [:]
        for index in 0..<100 {
            defaults["k\(index * 7 % 100)"] = index
            if index % 3 == 0 { call["k\(index)"] = "c\(index)" }
        }
        #expect(same(merged(defaults, [:], call), reference([defaults, call])))
    }

    @Test func randomLevelsMergeLikeDictionaries() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = ["a", "b", "A", "_", "-", "aa", "ab", "abcdefghij", "abcdefghik", "é", "x y"]
        for _ in 0..<200 {
            var levels: [Params] = [[:], [:], [:]]
            for level in levels.indices {
                for _ in 0..<Int.random(in: 0...12, using: &generator) {
                    let key =
                        (0..<Int.random(in: 1...3, using: &generator))
                        .map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined()
                    let value: any ParamConvertible =
                        Bool.random(using: &generator)
                        ? Int.random(in: -5...5, using: &generator) : (nil as String?)
                    levels[level][key] = value
                }
            }
            #expect(same(merged(levels[0], levels[1], levels[2]), reference(levels)))
        }
    }

    @Test func urlWithParamsEqualsURLWithTheirEncodedText() throws {
        let form = FormEncoder(options: .default)
        let longEscaped = String(repeating: "é ", count: 3000)  // far past the buffer's estimate
        let cases: [(path: String, params: [String: ParamValue])] = [
            ("/books", ["q": "a b", "ids": [1, 2] as ParamValue, "f": ["k": "v"] as ParamValue]),
            ("/books?fixed=1", ["q": "x"]),
            ("/books?", ["q": "x"]),
            ("", ["q": .string(longEscaped), "n": .null]),
            ("/a/b", ["only": .null]),
            ("/", [:]),
        ]
        for (path, params) in cases {
            let entries = FormEncoder.sortedEntries(params)
            let fast = try URLBuilder.url(
                base: "https://h.example.com/v1", path: path, params: entries, form: form)
            let plain = try URLBuilder.url(
                base: "https://h.example.com/v1", path: path, query: form.encode(params))
            #expect(fast.absoluteString == plain.absoluteString)
        }
    }

    @Test func pathTemplateFillsTokensBetweenLiteralRuns() throws {
        let filled = try PathTemplate.fill(
            "/a/:first/b{second}c/x:y/:third:verb?q=:first",
            with: ["first": "1 2", ":second": 7, "third": "t/u"])
        #expect(filled == "/a/1%202/b7c/x:y/t%2Fu:verb?q=:first")
    }

    @Test func pathPartNamedByACanonicallyEqualStringStillFillsItsToken() throws {
        // U+212A KELVIN SIGN is canonically equal to "K", as a dictionary key compares.
        #expect(try PathTemplate.fill("/:K", with: ["\u{212A}": 1]) == "/1")
    }

    @Test func integersKeepTheirDecimalText() {
        #expect(Int64.min.paramValue == .number(String(Int64.min)))
        #expect(UInt64.max.paramValue == .number(String(UInt64.max)))
        #expect(Int8(-5).paramValue == .number("-5"))
        #expect(UInt.max.paramValue == .number(String(UInt.max)))
        #expect([1, -2].paramValue == .array([.number("1"), .number("-2")]))
        #expect(["a", "b"].paramValue == .array([.string("a"), .string("b")]))
        #expect([Int8(1)].paramValue == .array([.number("1")]))
    }

    @Test func absolutePathsAreStillRecognized() {
        for path in ["//host/x", "https://h/x", "a+b.c-d://x"] { #expect(FollowURL.isAbsolute(path)) }
        for path in ["/users/:id", "", "/", "x:/y", "/a//b", "1a://x", ":/"] {
            #expect(!FollowURL.isAbsolute(path))
        }
    }

    @Test func headerLevelsMergeAsBefore() throws {
        var fields = try HeaderFields(merging: ["Accept": "a", "X-B": "1"])
        try fields.merge(["accept": " b ", "X-A": "2"])
        #expect(fields.fields.map(\.name) == ["accept", "X-B", "X-A"])
        #expect(fields["ACCEPT"] == "b")
        #expect(throws: NetLayerError.self) { try fields.merge(["Keep-ALIVE": "1"]) }
        #expect(throws: NetLayerError.self) { try fields.merge(["X": "a\u{7F}"]) }
    }
}
