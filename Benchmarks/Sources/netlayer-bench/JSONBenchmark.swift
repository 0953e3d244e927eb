import Foundation
import NetLayer

/// The JSON part (`--json-only`, `BENCH_ONLY=json`): decoding the same bytes as NetLayer's
/// ``JSONValue`` (`JSONValue(parsing:)`, the parser a call decoding `JSONValue` uses) and with
/// `JSONSerialization.jsonObject`, in ABBA pairs, for two documents:
///
/// - `flat`: about 4 MB of an array of small objects (ids, names with escapes and non-ASCII,
///   prices, booleans, nulls, short arrays), the shape of a large API page;
/// - `deep`: arrays and objects nested 500 deep (within both parsers' 512 limit), repeated to
///   about 1 MB, the shape of the hostile body of hostile-servers item 5.
///
/// Goal: JSONValue time / JSONSerialization time ≤ 1.5 for each. `JSONDecoder` decoding the
/// pre-parser `JSONValue` (each type in turn) and the fixed one (nested in a model, a `JSONValue` is
/// decoded this way) are timed once per document for comparison.
///
/// `BENCH_JSON_ROUNDS` (ABBA pairs per document; 7, quick 3), `BENCH_JSON_BYTES` (size of `flat`;
/// 4 MiB).
enum JSONBenchmark {
    static let goal = 1.5

    static func run(quick: Bool, progress: @Sendable (String) -> Void) throws -> [(String, String)] {
        let environment = ProcessInfo.processInfo.environment
        let pairs = environment["BENCH_JSON_ROUNDS"].flatMap { Int($0) }.map { max($0, 1) } ?? (quick ? 3 : 7)
        let bytes = environment["BENCH_JSON_BYTES"].flatMap { Int($0) }.map { max($0, 1024) } ?? (4 << 20)
        let documents = [("flat", flat(bytes: bytes)), ("deep", deep(bytes: 1 << 20, depth: 500))]
        print("")
        print(
            "JSON: JSONValue(parsing:) against JSONSerialization.jsonObject on the same bytes, \(pairs) ABBA pairs"
        )
        print(
            "| document | bytes | JSONValue(parsing:) ms | JSONSerialization ms | ratio | goal ≤ \(goal) "
                + "| JSONDecoder → JSONValue ms | JSONDecoder → pre-parser JSONValue ms |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        var fields: [(String, String)] = []
        for (name, data) in documents {
            // Both must read it, and agree on its size, before anything is timed.
            let value = try JSONValue(parsing: data)
            let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            guard count(value) == count(object) else {
                fail("json \(name): JSONValue and JSONSerialization disagree on the document")
            }
            var ours: [Double] = []
            var theirs: [Double] = []
            var ratios: [Double] = []
            for pair in 0..<pairs {
                progress("json \(name): pair \(pair + 1)/\(pairs)")
                // ABBA: JSONValue, JSONSerialization, JSONSerialization, JSONValue.
                let a1 = try seconds { _ = try JSONValue(parsing: data) }
                let b1 = try seconds {
                    _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                }
                let b2 = try seconds {
                    _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                }
                let a2 = try seconds { _ = try JSONValue(parsing: data) }
                ours.append((a1 + a2) / 2)
                theirs.append((b1 + b2) / 2)
                ratios.append((a1 + a2) / (b1 + b2))
            }
            // JSONValue nested in a model goes through JSONDecoder and JSONValue's init(from:).
            progress("json \(name): JSONDecoder")
            let nested = try seconds { _ = try JSONDecoder().decode(JSONValue.self, from: data) }
            // The pre-parser JSONValue is cubic in depth: timed on `flat` only (see README for `deep`).
            let legacy =
                name == "flat"
                ? try seconds { _ = try JSONDecoder().decode(PreParserJSONValue.self, from: data) } : nil
            let ratio = median(ratios)
            print(
                "| \(name) | \(data.count) | \(Report.fixed(median(ours) * 1000, 1)) | "
                    + "\(Report.fixed(median(theirs) * 1000, 1)) | \(Report.fixed(ratio, 2))x | "
                    + "\(ratio <= goal ? "met" : "NOT met") | \(Report.fixed(nested * 1000, 1)) | "
                    + "\(legacy.map { Report.fixed($0 * 1000, 1) } ?? "–") |")
            fields += [
                ("json_\(name)_ratio", Report.fixed(ratio, 2)),
                ("json_\(name)_jsonvalue_ms", Report.fixed(median(ours) * 1000, 1)),
                ("json_\(name)_jsonserialization_ms", Report.fixed(median(theirs) * 1000, 1)),
            ]
        }
        // One 500-deep value with the pre-parser JSONValue, for the record of what item 5 fixed.
        let one = deep(bytes: 0, depth: 500)
        progress("json: one 500-deep value with the pre-parser JSONValue")
        let cubic = try seconds { _ = try JSONDecoder().decode(PreParserJSONValue.self, from: one) }
        let fixed = try seconds { _ = try JSONDecoder().decode(JSONValue.self, from: one) }
        print(
            "one 500-deep value (\(one.count) bytes) through JSONDecoder: pre-parser JSONValue "
                + "\(Report.fixed(cubic * 1000, 1)) ms, JSONValue \(Report.fixed(fixed * 1000, 2)) ms")
        print(
            "ms: median of the pairs (each the mean of its two runs); ratio: median over pairs of JSONValue/JSONSerialization"
        )
        return fields
    }

    /// About `bytes` of `[{…},{…},…]`.
    static func flat(bytes: Int) -> Data {
        var text = "["
        var index = 0
        while text.utf8.count < bytes {
            if index > 0 { text += "," }
            text +=
                #"{"id":\#(1_000_000_007 &* index),"name":"item \#(index) \"quoted\" caf\u00e9 ☺","#
                + #""price":\#(Double(index) / 8 + 0.01),"active":\#(index % 2 == 0),"note":null,"#
                + #""tags":["alpha","beta","gamma"],"size":{"w":\#(index % 640),"h":\#(index % 480)}}"#
            index += 1
        }
        return Data((text + "]").utf8)
    }

    /// `[{"a":[{"a":…1…}]}, …]` nested `depth` deep, repeated to about `bytes`.
    static func deep(bytes: Int, depth: Int) -> Data {
        var one = ""
        for level in 0..<(depth - 1) { one += level % 2 == 0 ? "[" : #"{"a":"# }
        one += "1"
        for level in (0..<(depth - 1)).reversed() { one += level % 2 == 0 ? "]" : "}" }
        var parts: [String] = [one]
        var size = 2 + one.utf8.count
        while size < bytes {
            parts.append(one)
            size += one.utf8.count + 1
        }
        return Data(("[" + parts.joined(separator: ",") + "]").utf8)
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Values in a parsed document (a check that both parsers read the same thing).
    static func count(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + elements.reduce(0) { $0 + count($1) }
        case .object(let members): 1 + members.values.reduce(0) { $0 + count($1) }
        default: 1
        }
    }

    static func count(_ object: Any) -> Int {
        if let array = object as? [Any] { return 1 + array.reduce(0) { $0 + count($1) } }
        if let dictionary = object as? [String: Any] {
            return 1 + dictionary.values.reduce(0) { $0 + count($1) }
        }
        return 1
    }
}

/// `JSONValue` as its `init(from:)` was before NetLayer's parser: each type in turn, for comparison.
private enum PreParserJSONValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([PreParserJSONValue])
    case object([String: PreParserJSONValue])

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
        } else if let value = try? container.decode([PreParserJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: PreParserJSONValue].self))
        }
    }
}
