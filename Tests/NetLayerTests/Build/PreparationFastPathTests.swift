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

    @Test func aCallMergedIntoItsTargetsMergedParamsEqualsTheThreeLevelsMergedAtOnce() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = ["a", "b", "A", "_", "aa", "abcdefghij", "abcdefghik", "é", "e\u{301}", "x y"]
        for round in 0..<300 {
            var levels: [Params] = [[:], [:], [:]]
            for level in levels.indices {
                // Some rounds pass 64 keys in all, where the general sort takes over.
                let most = round % 10 == 0 ? 40 : 12
                for _ in 0..<Int.random(in: 0...most, using: &generator) {
                    let key =
                        (0..<Int.random(in: 1...3, using: &generator))
                        .map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined()
                    levels[level][key] =
                        Bool.random(using: &generator)
                        ? Int.random(in: -5...5, using: &generator) : (nil as String?)
                }
            }
            let targetLevel = FormEncoder.merged(
                defaults: mergeParams(levels[0]), target: mergeParams(levels[1]), call: [:])
            #expect(same(FormEncoder.merged(base: targetLevel, call: levels[2]), reference(levels)))
        }
    }

    /// A service whose base, default params and headers the target's share is made from.
    private final class SharedLevelsAPI: Resource, @unchecked Sendable {
        init(params: Params = [:], headers: [String: String] = [:]) {
            super.init(
                protocol: .https, domain: "api.example.com", version: "v2", defaultHeaders: headers,
                defaultParams: params)
        }
    }

    /// A call that adds nothing takes the URL its target worked out once; a call that adds a `nil`
    /// param (which sends nothing) works it out itself. Both must send the same request.
    @Test func aPlainCallSendsWhatACallWorkingItOutItselfSends() throws {
        let resources = [
            SharedLevelsAPI(), SharedLevelsAPI(params: ["page": 1, "q": "a b"], headers: ["Accept": "x/y"]),
        ]
        let paths = ["/books", "", "/", "/books?fixed=1&x=%20", "books/"]
        let targetParams: [Params] = [[:], ["q": "target", "lang": "é"], ["page": nil as String?]]
        let nothing: Params = ["not-sent": nil as String?]
        for resource in resources {
            for path in paths {
                for params in targetParams {
                    let target = Target(resource: resource, path: path, headers: ["X-T": "1"], params: params)
                    for method in [HTTPMethod.get, .delete, .post, .put] {
                        for placement in [ParamPlacement.automatic, .query, .form] {
                            let plain = try target.makeExecutor(method: method, placement: placement)
                                .transportRequest
                            let worked = try target.makeExecutor(
                                method: method, params: nothing, placement: placement
                            )
                            .transportRequest
                            #expect(
                                plain.url.absoluteString == worked.url.absoluteString, "\(method) \(path)")
                            #expect(
                                plain.headerFields.fields.map(\.name)
                                    == worked.headerFields.fields.map(\.name))
                            #expect(
                                plain.headerFields.fields.map(\.value)
                                    == worked.headerFields.fields.map(\.value))
                        }
                    }
                }
            }
        }
        let sample = try Target(resource: resources[1], path: "/books", params: ["q": "t"]).makeExecutor()
            .transportRequest
        #expect(sample.url.absoluteString == "https://api.example.com/v2/books?page=1&q=t")
    }

    /// What preparing `executor` gives, as comparable text: the prepared request's parts, or the
    /// error.
    private func preparation(_ executor: Executor) -> String {
        do {
            let prepared = try executor.prepare()
            let fields = prepared.headers.fields.map { "\($0.name)=\($0.value)" }
            // The full preparation keeps the call's nil param among the entries; it sends nothing.
            let entries = prepared.paramEntries.filter { $0.key != "not-sent" }.map {
                "\($0.key)=\($0.value)"
            }
            return [
                "\(prepared.request.method) \(prepared.request.url.absoluteString)",
                "\(prepared.method) \(prepared.url.absoluteString)",
                "\(prepared.request.headerFields == prepared.headers) \(fields)",
                "\(entries) \(prepared.placement) \(String(describing: prepared.body))",
                "\(String(describing: prepared.request.body))",
                "\(prepared.files.count) \(prepared.multipartFields.count)",
                "\(prepared.timeouts)",
            ].joined(separator: "\n")
                // A multipart boundary is random per request.
                .replacingOccurrences(
                    of: "NetLayer-[0-9a-f]+", with: "NetLayer-B", options: .regularExpression)
        } catch {
            return "error \(error.code): \(error.message)"
        }
    }

    /// A call that adds nothing and sends its params in the query takes the request its target
    /// worked out once; the same call made to work everything out itself (a param that sends
    /// nothing) must prepare the same request, or fail with the same error.
    @Test func aCallThatAddsNothingIsPreparedAsTheFullPreparationPreparesIt() {
        let resources = [
            SharedLevelsAPI(), SharedLevelsAPI(params: ["page": 1], headers: ["Accept": "x/y"]),
            SharedLevelsAPI(headers: ["Content-Type": "multipart/form-data"]),
            SharedLevelsAPI(headers: ["content-type": "application/json"]),
        ]
        let headerLevels: [[String: String]] = [[:], ["Content-Type": "application/x-www-form-urlencoded"]]
        let paramLevels: [Params] = [[:], ["q": "x y", "tags": ["a", "b"]], ["bad": Double.nan]]
        let methods: [HTTPMethod] = [
            .get, .head, .delete, .options, .trace, .connect, .post, .patch, HTTPMethod(rawValue: "PURGE"),
            HTTPMethod(rawValue: "get"), HTTPMethod(rawValue: "BAD METHOD"),
        ]
        let timeouts: [Duration?] = [nil, .milliseconds(1500), .zero]
        let nothing: Params = ["not-sent": nil as String?]
        var fast = 0
        for resource in resources {
            for headers in headerLevels {
                for params in paramLevels {
                    let target = Target(resource: resource, path: "/books", headers: headers, params: params)
                    if target.defaults.queryCall != nil { fast += 1 }
                    for method in methods {
                        for timeout in timeouts {
                            let plain = preparation(target.makeExecutor(method: method, timeout: timeout))
                            let full = preparation(
                                target.makeExecutor(method: method, params: nothing, timeout: timeout))
                            #expect(plain == full, "\(method) \(headers) \(params)")
                        }
                    }
                }
            }
        }
        // The targets with no Content-Type and sendable params (2 resources x 2 param levels).
        #expect(fast == 4)
    }

    /// The error preparing `target`'s plain GET throws, if any.
    private func preparationError(_ target: Target) -> NetLayerError? {
        do {
            _ = try target.makeExecutor().transportRequest
            return nil
        } catch {
            return error as? NetLayerError
        }
    }

    @Test func aTargetThatCannotBeSentFailsItsPlainCallsWithTheSameErrorAsBefore() {
        let api = SharedLevelsAPI(headers: ["Bad Name": "x"])
        // The path is checked before any header: its error comes first.
        let absolute = preparationError(Target(resource: api, path: "https://elsewhere.example.com/x"))
        #expect(absolute?.code == .invalidURL)
        // A path with tokens and no parts names the missing part, as when it fills them itself.
        let missing = preparationError(Target(resource: SharedLevelsAPI(), path: "/users/:id"))
        #expect(missing?.code == .missingPathParts)
        // The resource's bad header before the target's.
        let header = preparationError(Target(resource: api, path: "/x", headers: ["Also Bad": "y"]))
        #expect(header?.code == .invalidHeader)
        #expect(header?.message.contains("Bad Name") == true)
        // A bad target header alone.
        let own = preparationError(
            Target(resource: SharedLevelsAPI(), path: "/x", headers: ["Also Bad": "y"]))
        #expect(own?.code == .invalidHeader)
        #expect(own?.message.contains("Also Bad") == true)
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

    @Test func methodChecksAnswerAsTheirDefinitionsSay() {
        let registered = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]
        for name in registered + ["PROPFIND", "QUERY", "get", "M-SEARCH"] {
            #expect(HTTPMethod(rawValue: name).isValid, "\(name)")
        }
        for name in ["", "GE T", "GET\r\n", "GET/1", "(GET)", "G\u{E9}T"] {
            #expect(!HTTPMethod(rawValue: name).isValid, "\(name.debugDescription)")
        }
        let query: Set<String> = ["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
        for name in registered + ["PROPFIND", "get", "delete"] {
            let method = HTTPMethod(rawValue: name)
            #expect(method.sendsParamsInQuery == query.contains(method.rawValue), "\(name)")
            #expect(method.forbidsBody == ["GET", "HEAD"].contains(method.rawValue), "\(name)")
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
