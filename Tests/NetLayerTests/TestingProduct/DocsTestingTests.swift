import Foundation
import Testing

/// Docs/Testing.md shows only code that compiles and runs: every ```swift block of it appears in
/// `DocsTestingExamples.swift`, line for line.
@Suite("Docs/Testing.md")
struct DocsTestingTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repository = here.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everySwiftBlockIsCompiledByTheTests() throws {
        let document = try String(
            contentsOf: Self.repository.appendingPathComponent("Docs/Testing.md"), encoding: .utf8)
        let examples = Self.normalized(
            try String(
                contentsOf: Self.here.appendingPathComponent("DocsTestingExamples.swift"), encoding: .utf8))
        let blocks = Self.swiftBlocks(document)
        #expect(blocks.count >= 5)
        for block in blocks {
            let lines = Self.normalized(block)
            #expect(Self.contains(examples, lines), "not in DocsTestingExamples.swift: \(lines.first ?? "")")
        }
    }

    /// The contents of every block fenced with ```swift.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without indentation; blank lines left out.
    static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `lines` appear in `file` one after the other.
    static func contains(_ file: [String], _ lines: [String]) -> Bool {
        guard !lines.isEmpty, lines.count <= file.count else { return lines.isEmpty }
        return (0...(file.count - lines.count)).contains { start in
            file[start..<(start + lines.count)].elementsEqual(lines)
        }
    }
}
