import Foundation
import NetLayer

/// A step of the story did not turn out as expected.
struct StoryFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Throws ``StoryFailure`` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw StoryFailure(message: message()) }
}

/// Runs `call`, which must fail with `NetLayerError.unacceptableStatus` and `status`; returns the error.
func expectStatus<T>(
    _ status: Int, _ what: String, isolation: isolated (any Actor)? = #isolation, _ call: () async throws -> T
) async throws -> NetLayerError {
    do {
        _ = try await call()
    } catch let error as NetLayerError {
        try expect(
            error.code == .unacceptableStatus && error.statusCode == status,
            "\(what): expected status \(status), got \(error)")
        return error
    }
    throw StoryFailure(message: "\(what): expected status \(status), but the call succeeded")
}

/// Runs `call`, which must fail with a `NetLayerError` of `code`; returns the error.
func expectFailure<T>(
    _ code: NetLayerError.Code, _ what: String, isolation: isolated (any Actor)? = #isolation,
    _ call: () async throws -> T
) async throws -> NetLayerError {
    do {
        _ = try await call()
    } catch let error as NetLayerError {
        try expect(error.code == code, "\(what): expected \(code), got \(error)")
        return error
    }
    throw StoryFailure(message: "\(what): expected \(code), but the call succeeded")
}

extension NetLayerError {
    /// The service's JSON error body, when there is one.
    var apiError: APIErrorBody? {
        body.flatMap { try? JSONDecoder().decode(APIErrorBody.self, from: $0) }
    }

    /// A response header, looked up case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Console output of the story.
enum Console {
    static func step(_ number: Int, _ title: String) {
        print("\n── \(number). \(title)")
    }

    static func info(_ line: String) {
        print("   \(line)")
    }

    static func ok(_ line: String) {
        print("   ✓ \(line)")
    }

    static func fail(_ line: String) {
        fflush(nil)  // keep stdout and stderr in order when both go to one pipe
        FileHandle.standardError.write(Data("✗ \(line)\n".utf8))
    }
}

extension Duration {
    /// The duration in seconds.
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// `1.23 s`.
    var inSeconds: String { String(format: "%.2f s", secondsValue) }
}

/// Finds a document's Swift code blocks in the sample's sources, so docs show only code that
/// compiles (and, here, runs). A block matches when its lines, stripped of indentation and with
/// blank lines left out, appear in that order, one after the other, in one source file.
///
/// A block opened with ```` ```swift not-compiled ```` is code that cannot build here (SwiftUI,
/// Vapor); it is counted, not checked, and the document must say so next to it. Any other info
/// string after `swift` is refused, so a typo cannot switch the check off.
enum DocSnippets {
    /// `Samples/Sources`, found from this file's path.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The repository root.
    static let repository = sources.deletingLastPathComponent().deletingLastPathComponent()

    /// Checks every ```swift block of `document` (a path from the repository root); returns how
    /// many there were, the files they were found in, and how many were marked `not-compiled`.
    static func check(_ document: String) throws -> (blocks: Int, files: Set<String>, notCompiled: Int) {
        let markdown = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
        let files = try swiftFiles().map { file in
            (
                name: file.path.replacingOccurrences(of: sources.path + "/", with: ""),
                lines: normalized(try String(contentsOf: file, encoding: .utf8))
            )
        }
        let (blocks, notCompiled) = try codeBlocks(markdown, document: document)
        try expect(!blocks.isEmpty, "\(document) has no Swift code blocks")
        var found: Set<String> = []
        for block in blocks {
            let lines = normalized(block)
            guard let file = files.first(where: { contains($0.lines, lines) }) else {
                throw StoryFailure(
                    message:
                        "\(document): a code block is not in the sample's sources; it starts with: \(lines.first ?? "")"
                )
            }
            found.insert(file.name)
        }
        return (blocks.count, found, notCompiled)
    }

    private static func swiftFiles() throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        else {
            throw StoryFailure(message: "cannot list \(sources.path)")
        }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    private static func codeBlocks(_ markdown: String, document: String) throws -> (
        checked: [String], notCompiled: Int
    ) {
        var blocks: [String] = []
        var notCompiled = 0
        var current: [Substring]?
        var inOtherBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, !inOtherBlock, trimmed.hasPrefix("```") {
                let info = trimmed.dropFirst(3).split(separator: " ")
                if info.first == "swift", info.count == 1 {
                    current = []
                } else if info.first == "swift", info.dropFirst().elementsEqual(["not-compiled"]) {
                    notCompiled += 1
                    inOtherBlock = true
                } else if info.first?.hasPrefix("swift") == true {
                    throw StoryFailure(message: "\(document): unknown code block kind \(trimmed)")
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
        return (blocks, notCompiled)
    }

    private static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
