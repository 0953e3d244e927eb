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
