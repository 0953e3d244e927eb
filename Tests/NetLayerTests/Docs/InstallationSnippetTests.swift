import Foundation
import Testing

/// The README's installation snippet asks for the platforms the package itself requires, so an app
/// that copies it never meets SwiftPM's "requires macos 10.13, but depends on the product
/// 'NetLayer' which requires macos 13.0".
@Suite("Docs: the README's installation snippet")
struct InstallationSnippetTests {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The `platforms: […]` list of `text`, as written (spaces removed).
    static func platforms(in text: String, of file: String) throws -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("platforms: [") }),
            let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
        else { throw Missing(description: "\(file) has no platforms: [...] line") }
        return line[open...close].filter { $0 != " " }
    }

    @Test func theSnippetListsThePackagesOwnPlatforms() throws {
        let root = DocsExamplesTests.repository
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let installation = try #require(readme.components(separatedBy: "## Installation").dropFirst().first)
        let snippet = try #require(installation.components(separatedBy: "```").dropFirst().first)
        let package = try Self.platforms(in: manifest, of: "Package.swift")
        #expect(package.contains(".macOS(.v13)"))
        #expect(try Self.platforms(in: snippet, of: "README.md's installation snippet") == package)
        #expect(snippet.contains("revision:"))
    }
}
