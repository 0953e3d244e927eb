import Foundation
import NetLayer

/// A param value as the fuzzer models it: the Swift types a caller passes, nested freely.
///
/// Dictionaries are ordered lists of entries (never a Swift `Dictionary`, whose iteration order
/// changes from process to process), so a case prints and shrinks the same way on every run.
indirect enum FuzzValue: Sendable {
    case string(String)
    case int(Int)
    /// Any `Double`; a non-finite one is an input DESIGN refuses.
    case double(Double)
    case bool(Bool)
    /// A `nil` optional.
    case null
    case array([FuzzValue])
    case dictionary([FuzzEntry])

    /// Whether this is a `nil`.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether a non-finite `Double` occurs anywhere in the value.
    var containsNonFinite: Bool {
        switch self {
        case .double(let number): return !number.isFinite
        case .array(let items): return items.contains { $0.containsNonFinite }
        case .dictionary(let entries): return entries.contains { $0.value.containsNonFinite }
        case .string, .int, .bool, .null: return false
        }
    }

    /// Whether keys are unique (as Swift's `Dictionary` compares them) at every level.
    var hasUniqueKeys: Bool {
        switch self {
        case .array(let items): return items.allSatisfy(\.hasUniqueKeys)
        case .dictionary(let entries):
            return fuzzUniqueKeys(entries.map(\.key)) && entries.allSatisfy { $0.value.hasUniqueKeys }
        case .string, .int, .double, .bool, .null: return true
        }
    }

    /// Nodes in the value, for size limits and shrinking progress.
    var size: Int {
        switch self {
        case .array(let items): return 1 + items.reduce(0) { $0 + $1.size }
        case .dictionary(let entries):
            return 1 + entries.reduce(0) { $0 + $1.key.unicodeScalars.count + $1.value.size }
        case .string(let text): return 1 + text.unicodeScalars.count
        case .int, .double, .bool, .null: return 1
        }
    }

    // MARK: To NetLayer

    /// The value as a caller would pass it at the top level of `Params`: plain Swift values, typed
    /// arrays and dictionaries when the elements allow it (exercising those conformances), and
    /// `ParamValue` literals for mixed nesting.
    var convertible: any ParamConvertible {
        switch self {
        case .string(let text): return text
        case .int(let number): return number
        case .double(let number): return number
        case .bool(let flag): return flag
        case .null: return String?.none
        case .array(let items):
            if let strings = items.allStrings { return strings }
            if let numbers = items.allInts { return numbers }
            if let optionals = items.allOptionalStrings { return optionals }
            return paramValue
        case .dictionary(let entries):
            if let strings = entries.map(\.value).allStrings {
                return Dictionary(zip(entries.map(\.key), strings), uniquingKeysWith: { first, _ in first })
            }
            return paramValue
        }
    }

    /// The value through NetLayer's public conversions, for nesting inside `ParamValue`.
    var paramValue: ParamValue {
        switch self {
        case .string(let text): return .string(text)
        case .int(let number): return number.paramValue
        case .double(let number): return number.paramValue
        case .bool(let flag): return flag.paramValue
        case .null: return .null
        case .array(let items): return .array(items.map(\.paramValue))
        case .dictionary(let entries):
            var result: [String: ParamValue] = [:]
            for entry in entries { result[entry.key] = entry.value.paramValue }
            return .dictionary(result)
        }
    }

    // MARK: Printing

    /// Swift source for the value, strings shown with ``Swift/String/fuzzLiteral`` so control
    /// and invisible characters are visible.
    var swiftSource: String {
        switch self {
        case .string(let text): return text.fuzzLiteral
        case .int(let number): return String(number)
        case .double(let number):
            if number.isNaN { return "Double.nan" }
            if number.isInfinite { return number < 0 ? "-Double.infinity" : "Double.infinity" }
            return "\(number) as Double"
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "nil as String?"
        case .array(let items):
            return "[" + items.map(\.nestedSource).joined(separator: ", ") + "] as ParamValue"
        case .dictionary(let entries):
            if entries.isEmpty { return "[:] as ParamValue" }
            return "["
                + entries.map { "\($0.key.fuzzLiteral): \($0.value.nestedSource)" }.joined(
                    separator: ", ")
                + "] as ParamValue"
        }
    }

    private var nestedSource: String {
        switch self {
        case .null: return "nil"
        case .array, .dictionary:
            let source = swiftSource
            return String(source.dropLast(" as ParamValue".count))
        default: return swiftSource
        }
    }
}

/// One key of a dictionary or of the params.
struct FuzzEntry: Sendable {
    var key: String
    var value: FuzzValue
}

/// Whether `keys` are pairwise different as Swift's `Dictionary` compares strings (canonical
/// equivalence: `"é"` and `"e\u{301}"` are the same key), so none is lost when the fuzzer builds
/// the caller's dictionary.
func fuzzUniqueKeys(_ keys: [String]) -> Bool {
    Set(keys).count == keys.count
}

extension Array where Element == FuzzValue {
    fileprivate var allStrings: [String]? {
        guard !isEmpty else { return nil }
        var result: [String] = []
        for item in self {
            guard case .string(let text) = item else { return nil }
            result.append(text)
        }
        return result
    }

    fileprivate var allInts: [Int]? {
        guard !isEmpty else { return nil }
        var result: [Int] = []
        for item in self {
            guard case .int(let number) = item else { return nil }
            result.append(number)
        }
        return result
    }

    fileprivate var allOptionalStrings: [String?]? {
        guard contains(where: \.isNull) else { return nil }
        var result: [String?] = []
        for item in self {
            switch item {
            case .string(let text): result.append(text)
            case .null: result.append(nil)
            default: return nil
            }
        }
        return result
    }
}
