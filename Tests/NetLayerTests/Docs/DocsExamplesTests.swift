import Foundation
import Testing

/// The docs show only code that compiles: every ```swift block of a document appears, line for
/// line, in the test file that compiles it, or in the sample, which compiles and runs the other documents' code. A
/// block fenced ```swift not-compiled (code that needs a package or platform the tests lack) is
/// skipped; any other word after `swift` fails, so a typo cannot turn the check off.
@Suite("Docs are compiled")
struct DocsExamplesTests {
    /// `Tests/NetLayerTests`.
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
    static let repository = tests.deletingLastPathComponent().deletingLastPathComponent()

    /// Each document and the file (under Tests/NetLayerTests) that compiles its code.
    static let documents = [
        ("Docs/Testing.md", "TestingProduct/DocsTestingExamples.swift"),
        ("Docs/Guide.md", "Docs/GuideExamples.swift"),
        ("Docs/Observability.md", "Observation/ObservabilityExamples.swift"),
        ("Docs/Caching.md", "Caching/CachingExamples.swift"),
    ]

    @Test("Every Swift block is compiled by the tests", arguments: documents)
    func everySwiftBlockIsCompiled(_ document: String, _ examplesFile: String) throws {
        let markdown = try String(
            contentsOf: Self.repository.appendingPathComponent(document), encoding: .utf8)
        let examples = Self.normalized(
            try String(contentsOf: Self.tests.appendingPathComponent(examplesFile), encoding: .utf8))
        let blocks = try Self.swiftBlocks(Self.withoutCompanionPart(markdown))
        #expect(blocks.count >= 5)
        for block in blocks {
            let lines = Self.normalized(block)
            #expect(
                Self.contains(examples, lines), "\(document): not in \(examplesFile): \(lines.first ?? "")")
        }
    }

    /// The documents whose code the sample compiles and runs (`swift run --package-path Samples
    /// bookstore`, a CI step): each block must be found in one file under `Samples/Sources`.
    static let sampleDocuments = [
        "README.md", "Docs/GettingStarted.md", "Docs/Integration.md", "Docs/Migration.md",
        "Docs/Transfers.md", "Docs/Streaming.md", "Docs/Resilience.md", "Docs/Transports.md",
    ]

    @Test("Every Swift block is in one of the sample's files", arguments: sampleDocuments)
    func everySwiftBlockIsInTheSample(_ document: String) throws {
        let markdown = try String(
            contentsOf: Self.repository.appendingPathComponent(document), encoding: .utf8)
        let files = try Self.sampleFiles().map { file in
            (
                name: file.lastPathComponent,
                lines: Self.normalized(try String(contentsOf: file, encoding: .utf8))
            )
        }
        #expect(files.count >= 20, "the sample's sources were not found")
        let blocks = try Self.swiftBlocks(markdown)
        #expect(!blocks.isEmpty, "\(document) has no Swift code blocks")
        for block in blocks {
            let lines = Self.normalized(block)
            #expect(
                files.contains { Self.contains($0.lines, lines) },
                "\(document): a code block is not in Samples/Sources; it starts with: \(lines.first ?? "")")
        }
    }

    @Test func aBlockMissingFromTheSampleFailsTheCheck() throws {
        let files = try Self.sampleFiles().map {
            Self.normalized(try String(contentsOf: $0, encoding: .utf8))
        }
        let invented = Self.normalized("let answer = try await Bookstore.nowhere()\nprint(answer)")
        #expect(!files.contains { Self.contains($0, invented) })
        let real = Self.normalized("final class Bookstore: Resource, @unchecked Sendable {")
        #expect(files.contains { Self.contains($0, real) })
    }

    /// Every `.swift` file under `Samples/Sources`.
    static func sampleFiles() throws -> [URL] {
        let sources = repository.appendingPathComponent("Samples/Sources")
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test func aTypoInTheFenceFailsTheCheck() {
        #expect(throws: (any Error).self) { try Self.swiftBlocks("```swift not-compild\nlet x = 1\n```\n") }
        #expect(throws: Never.self) {
            let blocks = try Self.swiftBlocks(
                "```swift not-compiled\nlet x = 1\n```\n```swift\nlet y = 2\n```\n")
            #expect(blocks == ["let y = 2"])
        }
    }

    struct UnknownFence: Error { let line: String }

    /// The contents of every block fenced with ```swift (not ```swift not-compiled).
    static func swiftBlocks(_ markdown: String) throws -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        var inOtherBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, !inOtherBlock, trimmed.hasPrefix("```") {
                let info = trimmed.dropFirst(3).split(separator: " ")
                if info.first == "swift", info.count == 1 {
                    current = []
                } else if info.first == "swift", info.dropFirst().elementsEqual(["not-compiled"]) {
                    inOtherBlock = true
                } else if info.first?.hasPrefix("swift") == true {
                    throw UnknownFence(line: trimmed)
                } else {
                    inOtherBlock = true
                }
            } else if inOtherBlock, trimmed == "```" {
                inOtherBlock = false
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The document without its "The companion package" part (to the next `## ` heading): that part's
    /// code uses the observability companion package, which NetLayer's tests cannot import; its own
    /// tests compile it (Integrations/Observability, `ObservabilityDocsTests`).
    static func withoutCompanionPart(_ markdown: String) -> String {
        var lines: [Substring] = []
        var skipping = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                skipping = line.trimmingCharacters(in: .whitespaces) == "## The companion package"
            }
            if !skipping { lines.append(line) }
        }
        return lines.joined(separator: "\n")
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
