import Foundation
import Testing

@testable import NetLayer

@Suite("Form and query encoding")
struct FormEncoderTests {
    private func encode(_ params: Params, _ options: ParamStyle = .default) -> String {
        FormEncoder(options: options).encode(mergeParams(params))
    }

    @Test func keysAreSortedInByteOrder() {
        #expect(encode(["b": 1, "a": 2, "B": 3, "aa": 4]) == "B=3&a=2&aa=4&b=1")
    }

    @Test func sameParamsAlwaysGiveSameText() {
        let params: Params = ["z": 1, "y": ["b": 1, "a": 2], "x": [3, 2, 1], "w": "v"]
        let first = encode(params)
        for _ in 0..<20 { #expect(encode(params) == first) }
    }

    @Test func arraysUseBracketsByDefault() {
        #expect(encode(["k": ["a", "b"]]) == "k%5B%5D=a&k%5B%5D=b")
    }

    @Test func arraysWithoutBrackets() {
        #expect(encode(["k": ["a", "b"]], ParamStyle(arrays: .noBrackets)) == "k=a&k=b")
    }

    @Test func arraysWithIndexes() {
        #expect(encode(["k": ["a", "b"]], ParamStyle(arrays: .indexed)) == "k%5B0%5D=a&k%5B1%5D=b")
    }

    @Test func nestedDictionariesUseSubscripts() {
        #expect(encode(["k": ["sub": "v", "a": "w"]]) == "k%5Ba%5D=w&k%5Bsub%5D=v")
    }

    @Test func arraysOfDictionariesAreIndexed() {
        let items: [[String: Int]] = [["id": 1], ["id": 2]]
        #expect(encode(["k": items]) == "k%5B0%5D%5Bid%5D=1&k%5B1%5D%5Bid%5D=2")
    }

    @Test func boolsAreLiteralOrNumeric() {
        #expect(encode(["a": true, "b": false]) == "a=true&b=false")
        #expect(encode(["a": true, "b": false], ParamStyle(bools: .numeric)) == "a=1&b=0")
    }

    @Test func nilIsDropped() {
        let none: String? = nil
        #expect(encode(["a": none, "b": "x", "c": [none, "y"]]) == "b=x&c%5B%5D=y")
    }

    @Test func dateIsISO8601AndDataIsBase64() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(encode(["d": date]) == "d=2023-11-14T22%3A13%3A20Z")
        #expect(
            encode(["d": Date(timeIntervalSince1970: 1_700_000_000.25)]) == "d=2023-11-14T22%3A13%3A20.250Z")
        #expect(encode(["b": Data([0xFF, 0x00, 0x10])]) == "b=%2FwAQ")
    }

    @Test func onlyUnreservedCharactersStayLiteral() {
        #expect(encode(["q": "a b&c=d+e/f?g#h%i"]) == "q=a%20b%26c%3Dd%2Be%2Ff%3Fg%23h%25i")
        #expect(encode(["k y": "-._~AZaz09"]) == "k%20y=-._~AZaz09")
        #expect(encode(["u": "é漢😀"]) == "u=%C3%A9%E6%BC%A2%F0%9F%98%80")
    }

    @Test func alreadyEncodedTextIsEncodedOnceNotDecoded() {
        // `%20` typed by a caller is data, so its `%` is escaped exactly once.
        #expect(encode(["q": "a%20b"]) == "q=a%2520b")
        #expect(encode(["q": "a b"]) == "q=a%20b")
    }

    @Test func emptyValuesAreKept() {
        #expect(encode(["e": "", "f": "x"]) == "e=&f=x")
    }

    @Test func numbersKeepTheirText() {
        #expect(
            encode(["d": Decimal(string: "12.50")!, "f": 0.1, "i": -3, "u": UInt64.max])
                == "d=12.5&f=0.1&i=-3&u=18446744073709551615")
    }

    @Test func encodedTextEqualsEncodedPairs() {
        // `encode` writes bytes directly; it must stay the percent-encoded form of `pairs`, which
        // multipart uses for its field names.
        let params: Params = [
            "z": [["id": 1, "t": ["x", "y"]] as ParamValue] as [ParamValue],
            "a b": ["k[1]": "v w", "n": [1, 2]] as ParamValue, "e": "", "f": false,
        ]
        for arrays in [ParamStyle.ArrayEncoding.brackets, .noBrackets, .indexed] {
            let encoder = FormEncoder(options: ParamStyle(arrays: arrays))
            let values = mergeParams(params)
            let expected = encoder.pairs(values).map { pair in
                [pair.name, pair.value].map {
                    $0.addingPercentEncoding(
                        withAllowedCharacters: CharacterSet(
                            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
                        )) ?? ""
                }.joined(separator: "=")
            }.joined(separator: "&")
            #expect(encoder.encode(values) == expected)
        }
    }

    @Test func mixedLiteralValuesCompile() {
        let limit = 10
        let search: String? = nil
        let params: Params = [
            "limit": limit, "search": search, "filter": ["min": 1, "name": "x"] as ParamValue,
        ]
        #expect(encode(params) == "filter%5Bmin%5D=1&filter%5Bname%5D=x&limit=10")
    }
}

@Suite("JSON params")
struct JSONParamsTests {
    private func json(_ params: Params, nulls: ParamStyle.NullEncoding = .drop) throws -> String {
        String(decoding: try JSONParams.encode(mergeParams(params), nulls: nulls), as: UTF8.self)
    }

    @Test func objectWithSortedKeysAndTypedValues() throws {
        let text = try json(["b": true, "a": 1.5, "c": "x", "d": [1, 2], "e": ["k": "v"]])
        #expect(text == #"{"a":1.5,"b":true,"c":"x","d":[1,2],"e":{"k":"v"}}"#)
    }

    @Test func nilDroppedUnlessKept() throws {
        let none: Int? = nil
        #expect(try json(["a": none, "b": 1]) == #"{"b":1}"#)
        #expect(try json(["a": none, "b": 1], nulls: .null) == #"{"a":null,"b":1}"#)
    }

    @Test func stringsAreEscaped() throws {
        #expect(try json(["s": "q\"b\\n\nt\t\u{1}é"]) == #"{"s":"q\"b\\n\nt\t\u0001é"}"#)
    }

    @Test func nonFiniteNumberFailsToEncode() {
        do {
            _ = try json(["x": Double.nan])
            Issue.record("expected an error")
        } catch {
            #expect((error as? NetLayerError)?.code == .encodingFailed)
        }
    }

    @Test func outputParsesAsTheSameObject() throws {
        let data = try JSONParams.encode(mergeParams(["a": [["id": 1]], "u": "漢字"]), nulls: .drop)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((object["u"] as? String) == "漢字")
        #expect(((object["a"] as? [[String: Any]])?.first?["id"] as? Int) == 1)
    }

    @Test(arguments: ["0", "-1", "1.5", "1e10", "-0.5E-3"])
    func validNumbersAreAccepted(_ text: String) {
        #expect(JSONParams.isJSONNumber(text))
    }

    @Test(arguments: ["nan", "inf", "-inf", "01", "1.", ".5", "1e", "+1", ""])
    func invalidNumbersAreRejected(_ text: String) {
        #expect(!JSONParams.isJSONNumber(text))
    }
}
