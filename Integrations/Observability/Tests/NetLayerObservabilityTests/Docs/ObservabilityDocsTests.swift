import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import NetLayer
import NetLayerObservability
import NetLayerTesting
import Testing

/// Docs/Observability.md's "The companion package" shows only code that compiles: every ```swift
/// block of that part appears, line for line (indentation and blank lines aside), in
/// `ObservabilityExamples.swift`, which is compiled with these tests and run below. A block fenced
/// ```swift not-compiled (a manifest, or code that needs swift-otel) is skipped; any other word
/// after `swift` fails, so a typo cannot turn the check off.
@Suite("Docs/Observability.md is compiled")
struct ObservabilityDocsTests {
    /// `Tests/NetLayerObservabilityTests/Docs`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// The repository's root.
    static let repository = directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let heading = "## The companion package"

    @Test func everySwiftBlockOfThePartIsCompiled() throws {
        let markdown = try String(
            contentsOf: Self.repository.appendingPathComponent("Docs/Observability.md"), encoding: .utf8)
        let examples = Self.normalized(
            try String(
                contentsOf: Self.directory.appendingPathComponent("ObservabilityExamples.swift"),
                encoding: .utf8))
        let blocks = try Self.swiftBlocks(Self.part(markdown))
        #expect(blocks.count >= 5)
        for block in blocks {
            let lines = Self.normalized(block)
            #expect(
                Self.contains(examples, lines), "not in ObservabilityExamples.swift: \(lines.first ?? "")")
        }
    }

    @Test func theCheckCatchesAMissingBlockAndATypo() throws {
        let examples = Self.normalized(
            try String(
                contentsOf: Self.directory.appendingPathComponent("ObservabilityExamples.swift"),
                encoding: .utf8))
        #expect(!Self.contains(examples, Self.normalized("let telemetry = TelemetryObserver(tracer: nil)")))
        #expect(Self.contains(examples, Self.normalized("let telemetry = TelemetryObserver()")))
        #expect(throws: (any Error).self) { try Self.swiftBlocks("```swift not-compild\nlet x = 1\n```\n") }
        let part = Self.part(
            "# T\n## Other\n```swift\nlet a = 1\n```\n## The companion package\n```swift\nlet b = 2\n```\n## Next\n```swift\nlet c = 3\n```\n"
        )
        #expect(try Self.swiftBlocks(part) == ["let b = 2"])
    }

    /// The examples do what the document says.
    @Test func theExamplesRun() async throws {
        #expect(ObservabilityExamples.install().options.observer is TelemetryObserver)
        let options = ObservabilityExamples.logging()
        #expect(options.debug)

        let server = try LoopbackServer.start()
        server.route("/books") { _ in LoopbackResponse(status: 200, body: Data("[]".utf8)) }
        let telemetry = Telemetry()
        let observer = ObservabilityExamples.configured(tracer: telemetry.tracer, factory: telemetry.metrics)
        let resource = Resource(
            protocol: .http, domain: server.hostAndPort, options: ResourceOptions(observer: observer))
        let books = Target(resource: resource, path: "/books")
        #expect(try await ObservabilityExamples.onlyThisCall(books) == Data("[]".utf8))
        #expect(
            telemetry.tracer.finishedSpans.isEmpty,
            "the call's own observer wins: the bootstrapped no-op tracer")

        _ = try await books.makeExecutor().execute()
        let spans = try await telemetry.spans(count: 1)
        #expect(spans.map(\.kind) == [.client], "no call span")
        #expect(spans.first?.operationName == "GET /books")

        let log = CapturedLog()
        let sink = ObservabilityExamples.quieterRetries(log.logger)
        let quiet = Resource(
            protocol: .http, domain: server.hostAndPort, options: ResourceOptions(debug: true, log: sink))
        _ = try await Target(resource: quiet, path: "/books").makeExecutor().execute()
        #expect(!log.entries.isEmpty)
        #expect(log.entries.allSatisfy { $0.level == .trace })
    }

    /// From the part's heading to the next heading of its level or above.
    static func part(_ markdown: String) -> String {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == heading })
        else {
            return ""
        }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("# ") || $0.hasPrefix("## ") } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
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
