import Foundation

/// The results JSON in the suite's format (as `results/*.json`): an object from test id to `true`
/// or `[kind, message]`, keys sorted.
enum ResultsFile {
    /// The encoded results.
    /// - Throws: The encoder's error (none is expected for strings and booleans).
    static func encode(_ results: [String: TestResult]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(results)
        data.append(contentsOf: "\n".utf8)
        return data
    }
}
