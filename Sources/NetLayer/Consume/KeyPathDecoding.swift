import Foundation

/// One step of a key path: an object key or an array index.
enum KeyPathStep: Sendable, Equatable {
    case key(String)
    case index(Int)

    /// The path being decoded by the current task (a task-local, so a shared decoder needs no
    /// per-call state).
    @TaskLocal static var current: [KeyPathStep] = []

    /// `data.items[2].name` → key data, key items, index 2, key name.
    /// - Throws: ``NetLayerError/Code/invalidValue`` for an empty key, an unclosed or non-numeric
    ///   index, or an empty path.
    static func parse(_ text: String) throws(NetLayerError) -> [KeyPathStep] {
        func invalid(_ reason: String) -> NetLayerError {
            .invalidValue(part: "key path", reason: "\"\(text)\" \(reason)")
        }
        var steps: [KeyPathStep] = []
        var rest = Substring(text)
        var expectKey = true
        while !rest.isEmpty {
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw invalid("has an unclosed [") }
                guard let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0 else {
                    throw invalid("has an index that is not a number from 0")
                }
                steps.append(.index(index))
                rest = rest[rest.index(after: close)...]
                expectKey = false
            } else if rest.first == "." {
                guard !steps.isEmpty, !expectKey else { throw invalid("has an empty key") }
                rest = rest.dropFirst()
                expectKey = true
                if rest.isEmpty { throw invalid("ends with '.'") }
            } else {
                guard expectKey else { throw invalid("needs '.' before a key") }
                let end = rest.firstIndex(where: { $0 == "." || $0 == "[" }) ?? rest.endIndex
                steps.append(.key(String(rest[..<end])))
                rest = rest[end...]
                expectKey = false
            }
        }
        if steps.isEmpty { throw invalid("is empty") }
        return steps
    }
}

/// Decodes `Value` at ``KeyPathStep/current`` inside the document.
struct Nested<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        var decoder = decoder
        for step in KeyPathStep.current {
            switch step {
            case .key(let key):
                let container = try decoder.container(keyedBy: AnyKey.self)
                let codingKey = AnyKey(key)
                guard container.contains(codingKey) else {
                    throw DecodingError.keyNotFound(
                        codingKey,
                        DecodingError.Context(
                            codingPath: container.codingPath, debugDescription: "No value for key \"\(key)\"."
                        ))
                }
                decoder = try container.superDecoder(forKey: codingKey)
            case .index(let index):
                var container = try decoder.unkeyedContainer()
                if let count = container.count, index >= count {
                    throw DecodingError.valueNotFound(
                        Value.self,
                        DecodingError.Context(
                            codingPath: container.codingPath + [AnyKey(index)],
                            debugDescription: "The array has \(count) elements; there is no index \(index)."))
                }
                for _ in 0..<index { _ = try container.decode(Empty.self) }
                decoder = try container.superDecoder()
            }
        }
        value = try Value(from: decoder)
    }
}

extension Nested: Sendable where Value: Sendable {}

/// Any string or integer key.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(_ index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}
