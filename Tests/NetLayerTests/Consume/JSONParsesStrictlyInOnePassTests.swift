import Foundation
import NetLayer
import Testing

/// `JSONValue(parsing:)`, the one-pass parser a call decoding `JSONValue` uses (hostile-servers
/// item 5): it accepts and refuses what `JSONDecoder` does (but trailing commas) and gives the
/// same values as `JSONValue` decoded by `JSONDecoder` did before the parser existed.
///
/// The vectors are named after the cases of JSONTestSuite's `test_parsing` folder
/// (JSONTestSuite by Nicolas Seriot, nst/JSONTestSuite on GitHub, MIT; `y_` must be accepted, `n_`
/// refused, `i_` is up to the parser and the decision is noted); contents retyped here, a selection.
@Suite("JSON parses strictly in one pass", .tags(.hardening))
struct JSONParsesStrictlyInOnePassTests {
    static let accepted: [(String, String)] = [
        ("y_array_arraysWithSpaces", "[[]   ]"),
        ("y_array_empty", "[]"),
        ("y_array_empty-string", #"[""]"#),
        ("y_array_heterogeneous", #"[null, 1, "1", {}]"#),
        ("y_array_with_several_null", "[1,null,null,null,2]"),
        ("y_array_with_leading_space", " [1]"),
        ("y_number_0e+1", "[0e+1]"),
        ("y_number_0e1", "[0e1]"),
        ("y_number_after_space", "[ 4]"),
        (
            "y_number_double_close_to_zero",
            "[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]"
        ),
        ("y_number_int_with_exp", "[20e1]"),
        ("y_number_minus_zero", "[-0]"),
        ("y_number_negative_int", "[-123]"),
        ("y_number_negative_one", "[-1]"),
        ("y_number_real_capital_e", "[1E22]"),
        ("y_number_real_capital_e_neg_exp", "[1E-2]"),
        ("y_number_real_capital_e_pos_exp", "[1E+2]"),
        ("y_number_real_exponent", "[123e45]"),
        ("y_number_real_fraction_exponent", "[123.456e78]"),
        ("y_number_simple_real", "[123.456789]"),
        ("y_object_basic", #"{"asd":"sdf"}"#),
        ("y_object_duplicated_key", #"{"a":"b","a":"c"}"#),
        ("y_object_empty_key", #"{"":0}"#),
        ("y_object_escaped_null_in_key", #"{"foo\u0000bar": 42}"#),
        ("y_object_extreme_numbers", #"{ "min": -1.0e+28, "max": 1.0e+28 }"#),
        ("y_object_with_newlines", "{\n\"a\": \"b\"\n}"),
        ("y_string_allowed_escapes", #"["\"\\\/\b\f\n\r\t"]"#),
        ("y_string_accepted_surrogate_pair", #"["\uD801\udc37"]"#),
        ("y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF", #"["\uD834\uDd1e"]"#),
        ("y_string_unicode_escaped_double_quote", #"["\u0022"]"#),
        ("y_string_null_escape", #"["\u0000"]"#),
        ("y_string_utf8", "[\"€𝄞\"]"),
        ("y_string_nonCharacterInUTF-8_U+FFFF", "[\"\u{FFFF}\"]"),
        ("y_string_with_del_character", "[\"a\u{7F}a\"]"),
        ("y_structure_lonely_false", "false"),
        ("y_structure_lonely_int", "42"),
        ("y_structure_lonely_negative_real", "-0.1"),
        ("y_structure_lonely_null", "null"),
        ("y_structure_lonely_string", #""asd""#),
        ("y_structure_trailing_newline", "[\"a\"]\n"),
        ("y_structure_whitespace_array", " [] "),
        // i_ decisions: accepted as JSONDecoder accepts them.
        ("i_number_real_underflow", "[123e-10000000]"),
        (
            "i_structure_500_nested_arrays",
            String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        ),
        // Numbers JSONValue keeps exact or reads as JSONDecoder does.
        ("netlayer/integral_fraction", "[1.0, -0.0, 2.5e3, 1E+2, 9007199254740993.0, 9007199254740993e0]"),
        (
            "netlayer/int64_edges",
            "[9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809]"
        ),
        (
            "netlayer/big_numbers",
            "[123456789012345678901234567890, 18446744073709551616, 1.5e300, 0.99999999999999999]"
        ),
    ]

    static let refused: [(String, String)] = [
        ("n_array_1_true_without_comma", "[1 true]"),
        ("n_array_double_comma", "[1,,2]"),
        ("n_array_extra_comma", #"["",]"#),
        ("n_array_just_comma", "[,]"),
        ("n_array_missing_value", #"[   , ""]"#),
        ("n_array_number_and_comma", "[1,]"),
        ("n_array_unclosed", #"[""#),
        ("n_incomplete_false", "[fals]"),
        ("n_incomplete_true", "[tru]"),
        ("n_number_+1", "[+1]"),
        ("n_number_-01", "[-01]"),
        ("n_number_0.e1", "[0.e1]"),
        ("n_number_0_capital_E", "[0E]"),
        ("n_number_-00.0", "[-00.0]"),
        ("n_number_hex_1_digit", "[0x1]"),
        ("n_number_infinity", "[Infinity]"),
        ("n_number_minus_infinity", "[-Infinity]"),
        ("n_number_minus_space_1", "[- 1]"),
        ("n_number_NaN", "[NaN]"),
        ("n_number_real_without_fractional_part", "[1.]"),
        ("n_number_starting_with_dot", "[.123]"),
        ("n_object_missing_colon", #"{"a" b}"#),
        ("n_object_missing_value", #"{"a":"#),
        ("n_object_non_string_key", "{1:1}"),
        ("n_object_single_quote", "{'a':0}"),
        ("n_object_trailing_comma", #"{"id":0,}"#),
        ("n_object_unquoted_key", #"{a: "b"}"#),
        ("n_single_space", " "),
        ("n_string_1_surrogate_then_escape_u", #"["\uD800\u"]"#),
        ("n_string_escape_x", #"["\x00"]"#),
        ("n_string_incomplete_escape", #"["\"]"#),
        ("n_string_invalid_unicode_escape", #"["\uqqqq"]"#),
        ("n_string_single_quote", "['single quote']"),
        ("n_string_unescaped_newline", "[\"new\nline\"]"),
        ("n_string_unescaped_tab", "[\"\t\"]"),
        ("n_structure_capitalized_True", "[True]"),
        ("n_structure_double_array", "[][]"),
        ("n_structure_lone-open-bracket", "["),
        ("n_structure_no_data", ""),
        ("n_structure_null-byte-outside-string", "[\u{0}]"),
        ("n_structure_trailing_#", #"{"a":"b"}#{}"#),
        ("n_structure_unclosed_object", #"{"asd":"asd""#),
        ("n_structure_whitespace_formfeed", "[\u{0C}]"),
        ("n_structure_100000_opening_arrays", String(repeating: "[", count: 100_000)),
        // i_ decisions: refused, as JSONDecoder refuses them.
        (
            "i_number_huge_exp",
            "[0.4e00669999999999999999999999999999999999999999999999999999999999999999999006]"
        ),
        ("i_number_real_pos_overflow", "[123123e100000]"),
        ("i_string_1st_surrogate_but_2nd_missing", #"["\uDADA"]"#),
        ("i_string_1st_valid_surrogate_2nd_invalid", #"["\uD888\u1234"]"#),
        ("i_string_incomplete_surrogate_and_escape_valid", #"["\uD800\n"]"#),
        ("i_string_lone_second_surrogate", #"["\uDFAA"]"#),
        (
            "i_structure_513_nested_arrays",
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        ),
    ]

    /// Not UTF-8 text: refused (i_ decisions, as JSONDecoder).
    static let refusedBytes: [(String, [UInt8])] = [
        ("i_string_invalid_utf-8", [0x5B, 0x22, 0xFF, 0x22, 0x5D]),
        ("i_string_truncated-utf-8", [0x5B, 0x22, 0xE0, 0xFF, 0x22, 0x5D]),
        ("i_string_UTF-8_invalid_sequence", [0x5B, 0x22, 0xE6, 0x97, 0xA5, 0xD1, 0x88, 0xFA, 0x22, 0x5D]),
        ("i_string_overlong_sequence_2_bytes", [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D]),
        ("i_string_UTF8_surrogate_U+D800", [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D]),
        ("i_string_not_in_unicode_range", [0x5B, 0x22, 0xF4, 0xBF, 0xBF, 0xBF, 0x22, 0x5D]),
    ]

    /// `JSONValue` as its `init(from:)` was before this parser: each type in turn. The reference
    /// for values.
    enum Legacy: Decodable {
        case null
        case bool(Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        case array([Legacy])
        case object([String: Legacy])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Legacy].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Legacy].self))
            }
        }

        var value: JSONValue {
            switch self {
            case .null: .null
            case .bool(let value): .bool(value)
            case .integer(let value): .integer(value)
            case .double(let value): .double(value)
            case .string(let value): .string(value)
            case .array(let value): .array(value.map(\.value))
            case .object(let value): .object(value.mapValues(\.value))
            }
        }
    }

    @Test(arguments: accepted)
    func acceptsValidJSONWithTheValuesJSONDecoderGives(name: String, text: String) throws {
        let data = Data(text.utf8)
        let parsed = try JSONValue(parsing: data)
        // JSONValue nested in a model, through JSONDecoder: the same value, near the top and deep.
        let nested = try JSONDecoder().decode([JSONValue].self, from: Data("[\(text)]".utf8))
        #expect(nested == [parsed], "\(name)")
        if name != "i_structure_500_nested_arrays" {
            let deep = try JSONDecoder().decode(
                JSONValue.self,
                from: Data(
                    (String(repeating: "[", count: 20) + text + String(repeating: "]", count: 20)).utf8))
            var innermost = deep
            for _ in 0..<20 { innermost = innermost[0] ?? .null }
            #expect(innermost == parsed, "\(name) at depth 20")
        }
        // And the value JSONValue had before (too slow to wait for with 500 nested arrays).
        if name != "i_structure_500_nested_arrays" {
            #expect(parsed == (try JSONDecoder().decode(Legacy.self, from: data).value), "\(name)")
        }
    }

    @Test(arguments: refused)
    func refusesInvalidJSONWithDecodingFailed(name: String, text: String) throws {
        let error = #expect(throws: NetLayerError.self, "\(name)") { try JSONValue(parsing: Data(text.utf8)) }
        #expect(error?.code == .decodingFailed)
        #expect(
            error?.message.hasPrefix("cannot decode JSONValue: The given data was not valid JSON: ") == true)
        #expect(error?.body == Data(text.utf8))
    }

    @Test(arguments: refusedBytes)
    func refusesMalformedUTF8(name: String, bytes: [UInt8]) throws {
        #expect(throws: NetLayerError.self, "\(name)") { try JSONValue(parsing: Data(bytes)) }
        #expect(throws: DecodingError.self, "\(name)") {
            try JSONDecoder().decode(Legacy.self, from: Data(bytes))
        }
    }

    /// JSONDecoder on Linux lets trailing commas through; RFC 8259 and this parser do not.
    @Test func trailingCommasAreRefusedThoughJSONDecoderTakesThem() throws {
        #expect(throws: NetLayerError.self) { try JSONValue(parsing: Data("[1,]".utf8)) }
        #expect(throws: NetLayerError.self) { try JSONValue(parsing: Data(#"{"a":1,}"#.utf8)) }
    }

    @Test func theExactValuesOfNumbers() throws {
        let text = try #require(Self.accepted.first { $0.0 == "netlayer/integral_fraction" }?.1)
        let parsed = try JSONValue(parsing: Data(text.utf8))
        #expect(
            parsed
                == .array([
                    .integer(1), .integer(0), .integer(2500), .integer(100), .integer(9_007_199_254_740_993),
                    .integer(9_007_199_254_740_993),
                ]))
        let edges = try JSONValue(
            parsing: Data(
                "[9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809, 0.5]"
                    .utf8))
        #expect(
            edges
                == .array([
                    .integer(.max), .integer(.min), .double(9_223_372_036_854_775_808),
                    .double(-9_223_372_036_854_775_808), .double(0.5),
                ]))
    }

    @Test func theMessageSaysWhatAndWhere() throws {
        let error = #expect(throws: NetLayerError.self) {
            try JSONValue(parsing: Data(#"{"a": [1, 2,]}"#.utf8))
        }
        #expect(
            error?.message
                == #"cannot decode JSONValue: The given data was not valid JSON: unexpected character ']' at byte 12. Body: {"a": [1, 2,]}"#
        )
        let surrogate = #expect(throws: NetLayerError.self) {
            try JSONValue(parsing: Data(#"["ab\uD800"]"#.utf8))
        }
        #expect(
            surrogate?.message.contains("a \\u escape of a high surrogate without a low one at byte 4")
                == true)
    }

    /// i_structure_UTF-8_BOM_empty_object: a UTF-8 byte order mark is skipped, as JSONDecoder does.
    @Test func aUTF8ByteOrderMarkIsSkipped() throws {
        let data = Data("\u{FEFF}{}".utf8)
        #expect(try JSONValue(parsing: data) == .object([:]))
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == .object([:]))
    }

    /// UTF-16 and UTF-32 (with or without a byte order mark) are read, as JSONDecoder reads them.
    @Test func wideEncodingsAreReadAsJSONDecoderReadsThem() throws {
        let text = #"{"a":[1,"é"]}"#
        let utf16LE: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE: [UInt8] = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for bytes in [utf16LE, utf16BE] {
            #expect(try JSONValue(parsing: Data(bytes)) == ["a": .array([.integer(1), .string("é")])].json)
        }
    }

    /// A larger document of every kind: the same value as JSONDecoder's.
    /// A second of parsing and decoding (several under the thread sanitizer): on a thread of its own
    /// (see `offThePool`).
    @Test func aLargeMixedDocumentMatchesJSONDecoder() async throws {
        var items: [String] = []
        for index in 0..<2000 {
            items.append(
                #"{"id":\#(index),"name":"item \#(index) \u00e9\u263a\ud83d\ude00 \"q\"","price":\#(Double(index) / 7),"#
                    + #""tags":["a","b",null,true,false],"nested":{"big":\#(Int64.max - Int64(index)),"neg":-\#(index)e-3}}"#
            )
        }
        let data = Data(("[" + items.joined(separator: ",\n ") + "]").utf8)
        let (parsed, decoded) = try await offThePool {
            (try JSONValue(parsing: data), try JSONDecoder().decode(Legacy.self, from: data).value)
        }
        #expect(parsed == decoded)
        #expect(parsed[1999]?["nested"]?["big"] == .integer(Int64.max - 1999))
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    fileprivate var json: JSONValue { .object(self) }
}
