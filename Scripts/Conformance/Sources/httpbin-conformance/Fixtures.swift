import Foundation
import NetLayer

/// The params most cases send, and what DESIGN.md §6/§7 say they mean.
enum Fixture {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let reserved = "a&b=c+d?e#f/g%h i[j]k;l,m:n@o$p!q'r(s)t*u\"v"
    static let reservedKey = "k&=+?#/% [x]"

    static var params: Params {
        [
            "arr": ["a", "b", "c"],
            "big": UInt64.max,
            "ctl": "tab\there\r\nnew line",
            "date": Date(timeIntervalSince1970: 1_700_000_000),
            "dbl": 3.25,
            "dec": Decimal(string: "0.1")!,
            "empty": "",
            "emptyArr": [String](),
            "emptyDict": [String: String](),
            "int": 42,
            "items": [["id": 1, "name": "one"] as ParamValue, ["id": 2, "name": "two é"] as ParamValue],
            reservedKey: "reserved key",
            "neg": -7,
            "nfd": "e\u{301} (decomposed)",
            "nested": ["sub": "v", "deep": ["x": "1", "y": 2] as ParamValue] as ParamValue,
            "nilArr": ["a", nil, "b"] as [String?],
            "no": false,
            "none": nil as String?,
            "plus": "1+1=2",
            "reserved": reserved,
            "sp ace": "  two  spaces  ",
            "uni": "é 漢字 🚀",
            "uuid": uuid,
            "yes": true,
            "é漢🚀": "unicode key",
        ]
    }

    /// §6: the flattened name/value pairs (names before percent-encoding).
    static let pairs: [(String, String)] = [
        ("arr[]", "a"), ("arr[]", "b"), ("arr[]", "c"),
        ("big", "18446744073709551615"),
        ("ctl", "tab\there\r\nnew line"),
        ("date", "2023-11-14T22:13:20Z"),
        ("dbl", "3.25"),
        ("dec", "0.1"),
        ("empty", ""),
        ("int", "42"),
        ("items[0][id]", "1"), ("items[0][name]", "one"), ("items[1][id]", "2"), ("items[1][name]", "two é"),
        (reservedKey, "reserved key"),
        ("neg", "-7"),
        ("nfd", "e\u{301} (decomposed)"),
        ("nested[deep][x]", "1"), ("nested[deep][y]", "2"), ("nested[sub]", "v"),
        ("nilArr[]", "a"), ("nilArr[]", "b"),
        ("no", "false"),
        ("plus", "1+1=2"),
        ("reserved", reserved),
        ("sp ace", "  two  spaces  "),
        ("uni", "é 漢字 🚀"),
        ("uuid", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        ("yes", "true"),
        ("é漢🚀", "unicode key"),
    ]

    /// What httpbin shows for `pairs` in `args` or `form`.
    static var flat: JSON { semiflatten(pairs) }

    /// §7: the same params as one JSON object.
    static let json: JSON = [
        "arr": ["a", "b", "c"],
        "big": .number("18446744073709551615"),
        "ctl": "tab\there\r\nnew line",
        "date": "2023-11-14T22:13:20Z",
        "dbl": 3.25,
        "dec": 0.1,
        "empty": "",
        "emptyArr": [],
        "emptyDict": [:],
        "int": 42,
        "items": [["id": 1, "name": "one"], ["id": 2, "name": "two é"]],
        "k&=+?#/% [x]": "reserved key",
        "neg": -7,
        "nfd": "e\u{301} (decomposed)",
        "nested": ["deep": ["x": "1", "y": 2], "sub": "v"],
        "nilArr": ["a", "b"],
        "no": false,
        "plus": "1+1=2",
        "reserved": .string(reserved),
        "sp ace": "  two  spaces  ",
        "uni": "é 漢字 🚀",
        "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "yes": true,
        "é漢🚀": "unicode key",
    ]

    /// A `.json(Encodable)` body.
    struct Book: Encodable, Sendable {
        var title = "Dune 漢字 🚀 \"q\" a/b"
        var tags = ["x", "y é"]
        var meta = ["b": 2, "a": 1]
        var subtitle: String? = nil
        var price = 9.5
    }

    static let bookJSON: JSON = [
        "meta": ["a": 1, "b": 2], "price": 9.5, "tags": ["x", "y é"], "title": "Dune 漢字 🚀 \"q\" a/b",
    ]
    /// The resource's default encoder: sorted keys, slashes unescaped, `nil` optionals left out.
    static let bookBytes =
        #"{"meta":{"a":1,"b":2},"price":9.5,"tags":["x","y é"],"title":"Dune 漢字 🚀 \"q\" a/b"}"#

    /// A 1×1 PNG.
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    )!
}

extension Fixture {
    /// `count` deterministic bytes that make a multipart parser work: random bytes (invalid UTF-8
    /// included) densely interleaved with CR, LF, `--`, a blank line, and lines that look like a
    /// NetLayer boundary (`--NetLayer-` + hex) but are not this request's: one hex digit short, a
    /// whole closing delimiter of another boundary, a fake part header. Starts with `--NetLayer-`
    /// and ends with `\r\n--NetLayer-`, so the part's own delimiter follows a look-alike.
    static func trickyBytes(count: Int, seed: UInt64) -> Data {
        let hex31 = "0123456789abcdef0123456789abcde"
        let patterns: [[UInt8]] = [
            Array("\r\n".utf8), Array("\r".utf8), Array("\n".utf8), Array("--".utf8), Array("\r\n--".utf8),
            Array("\r\n\r\n".utf8), Array("\r\n-".utf8), Array("--NetLayer-".utf8),
            Array("\r\n--NetLayer-".utf8), Array("\r\n--NetLayer-\(hex31)".utf8),
            Array("\r\n--NetLayer-\(hex31)f--\r\n".utf8),
            Array("\r\n--NetLayer-\(hex31)0\r\nContent-Disposition: form-data; name=\"evil\"\r\n\r\nx".utf8),
            [0xFF, 0xFE, 0x00, 0x0D], [0xE2, 0x80], [0xC3, 0xA9, 0x2D, 0x2D],
        ]
        var random = SplitMix(seed: seed)
        var bytes = Array("--NetLayer-".utf8)
        bytes.reserveCapacity(count + 128)
        while bytes.count < count {
            for _ in 0..<Int(random.next() % 61) { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
            bytes += patterns[Int(random.next() % UInt64(patterns.count))]
        }
        let tail = Array("\r\n--NetLayer-".utf8)
        bytes.removeLast(bytes.count - count)
        bytes.replaceSubrange((count - tail.count)..<count, with: tail)
        return Data(bytes)
    }

    /// UTF-8 text of at least `count` bytes in CRLF lines, with multi-byte characters and lines that
    /// look like multipart delimiters.
    static func trickyText(count: Int) -> String {
        var text = ""
        var line = 0
        while text.utf8.count < count {
            text += line % 7 == 3 ? "--NetLayer-\(line)--\r\n" : "line \(line) é 漢字 🚀 — \"q\" \\ a/b\r\n"
            line += 1
        }
        return text
    }

    /// httpbin's `/range/N` body: byte i is `a` + i % 26.
    static func rangeBytes(_ range: Range<Int>) -> Data {
        Data(range.map { UInt8(ascii: "a") + UInt8($0 % 26) })
    }
}

/// SplitMix64: a small seeded generator, the same bytes on every platform.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// httpbin's `json_safe`: the bytes as text when they are UTF-8, else a `data:` URL with base64,
/// labelled `contentType` (a file part's own type; `application/octet-stream` for `data`).
func httpbinJSONSafe(_ bytes: Data, contentType: String = "application/octet-stream") -> String {
    String(validating: bytes, as: UTF8.self) ?? "data:\(contentType);base64,\(bytes.base64EncodedString())"
}
