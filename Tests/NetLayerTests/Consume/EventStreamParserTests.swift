import Foundation
import Testing

@testable import NetLayer

/// ``EventStreamParser`` against the WHATWG HTML "Interpreting an event stream" rules: the test
/// vectors of web-platform-tests' `eventsource/` directory plus NetLayer's own
/// (`Fixtures/event-stream-fixtures.json`, see `Fixtures/README.md`), each fed whole, one byte at a
/// time and split in two at every byte; then focused tests of what the fixtures cannot show.
@Suite("Server-Sent Events: parser")
struct EventStreamParserTests {
    // MARK: - Fixtures

    /// One expected event, as the fixture file writes it (`lastEventId` "" is `id == nil`).
    struct Expected: Decodable, Hashable, Sendable, CustomStringConvertible {
        var type: String
        var data: String
        var lastEventId: String

        init(type: String = "message", data: String, lastEventId: String = "") {
            self.type = type
            self.data = data
            self.lastEventId = lastEventId
        }

        /// An emitted event in the fixture's terms. An `id` of `""` (which the parser must never
        /// emit: empty is `nil`) maps to a marker no fixture expects.
        init(_ event: ServerSentEvent) {
            self.init(
                type: event.event, data: event.data,
                lastEventId: event.id.map { $0.isEmpty ? "<id is \"\" instead of nil>" : $0 } ?? "")
        }

        var description: String {
            "(\(type.debugDescription), \(data.debugDescription), id \(lastEventId.debugDescription))"
        }
    }

    struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var source: String
        var stream: String
        var streamBase64: String?
        var events: [Expected]
        var reconnectionTimeMs: Int64?
        /// The parser's `lastEventID` once the stream ended, when it is not the last event's.
        var lastEventIdAtEnd: String?

        var testDescription: String { name }

        /// The exact bytes: `streamBase64` when the stream is not valid UTF-8, else `stream`.
        var bytes: [UInt8] {
            if let streamBase64 { return Array(Data(base64Encoded: streamBase64) ?? Data()) }
            return Array(stream.utf8)
        }

        var expected: Outcome {
            Outcome(
                events: events, reconnectionTimeMs: reconnectionTimeMs,
                lastEventID: lastEventIdAtEnd ?? events.last?.lastEventId ?? "", afterFinish: [])
        }
    }

    /// What one run of a stream gave.
    struct Outcome: Equatable, Sendable, CustomStringConvertible {
        var events: [Expected]
        var reconnectionTimeMs: Int64?
        /// ``EventStreamParser/lastEventID`` after ``EventStreamParser/finish()``.
        var lastEventID: String
        /// Events that two line ends fed after `finish()` brought out: a line or event the end of
        /// the stream should have discarded.
        var afterFinish: [Expected]

        var description: String {
            "events \(events), retry \(reconnectionTimeMs.map(String.init) ?? "nil") ms, "
                + "lastEventID \(lastEventID.debugDescription), after finish() \(afterFinish)"
        }
    }

    static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/event-stream-fixtures.json")

    static func loadFixtures() throws -> [Fixture] {
        try JSONDecoder().decode([Fixture].self, from: Data(contentsOf: fixtureURL))
    }

    /// Empty when the file is missing or broken: ``theFixtureFileIsCompleteAndExact()`` fails then.
    static let fixtures: [Fixture] = (try? loadFixtures()) ?? []

    static func milliseconds(_ duration: Duration?) -> Int64? {
        guard let duration else { return nil }
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Feeds `chunks` as one stream, ends it, then feeds two line ends to show what `finish()` kept.
    static func run(_ chunks: [ArraySlice<UInt8>], maximumEventSize: Int = 16 << 20) throws -> Outcome {
        var parser = EventStreamParser(maximumEventSize: maximumEventSize)
        var events: [Expected] = []
        for chunk in chunks {
            try parser.consume(Data(chunk)) { events.append(Expected($0)) }
        }
        let retry = milliseconds(parser.reconnectionTime)
        parser.finish()
        let lastEventID = parser.lastEventID
        var afterFinish: [Expected] = []
        try parser.consume(Data("\n\n".utf8)) { afterFinish.append(Expected($0)) }
        return Outcome(
            events: events, reconnectionTimeMs: retry, lastEventID: lastEventID, afterFinish: afterFinish)
    }

    static func whole(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] { [bytes[...]] }
    static func bytewise(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] { bytes.indices.map { bytes[$0...$0] } }
    static func split(_ bytes: [UInt8], at cut: Int) -> [ArraySlice<UInt8>] {
        [bytes[..<cut], bytes[cut...]]
    }

    /// Every `format-*` parsing test of WPT's `eventsource/` the fixtures port (the MIME ones check
    /// the connection, not the parser: see the README).
    static let portedWPTFiles = [
        "format-bom.any.js", "format-bom-2.any.js", "format-comments.any.js",
        "format-data-before-final-empty-line.any.js", "format-field-data.any.js", "format-field-event.any.js",
        "format-field-event-empty.any.js", "format-field-id.any.js", "format-field-id-2.any.js",
        "format-field-id-3.window.js", "format-field-id-null.window.js", "format-field-parsing.any.js",
        "format-field-retry.any.js", "format-field-retry-bogus.any.js", "format-field-retry-empty.any.js",
        "format-field-unknown.any.js", "format-leading-space.any.js", "format-newlines.any.js",
        "format-null-character.any.js", "format-utf-8.any.js", "event-data.any.js",
        "eventsource-onmessage.any.js", "eventsource-from-readable-stream.any.js",
    ]

    @Test func theFixtureFileIsCompleteAndExact() throws {
        let fixtures = try Self.loadFixtures()
        #expect(fixtures.count >= 100)
        #expect(fixtures.filter { $0.source.hasPrefix("web-platform-tests/wpt eventsource/") }.count >= 43)
        #expect(fixtures.filter { $0.source == "netlayer" }.count >= 57)
        #expect(Set(fixtures.map(\.name)).count == fixtures.count, "fixture names are unique")
        for file in Self.portedWPTFiles {
            #expect(fixtures.contains { $0.source.contains("eventsource/\(file)") }, "\(file) is ported")
        }
        // The JSON escapes came through as the exact bytes.
        let byName = Dictionary(fixtures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["wpt/format-null-character"]?.bytes == Array("data:\u{0}\n\n\n\n\n".utf8))
        #expect(byName["wpt/format-bom"]?.bytes.prefix(4) == [0xEF, 0xBB, 0xBF, 0x64])
        #expect(byName["wpt/format-comments"]?.bytes.count == 4146)
        #expect(
            byName["netlayer/invalid-utf-8-surrogate"]?.bytes == Array("data:".utf8) + [
                0xED, 0xA0, 0x80, 0x0A, 0x0A,
            ])
        // `streamBase64` exactly where the bytes are not UTF-8, and `stream` then shows them decoded.
        for fixture in fixtures {
            let bytes = fixture.bytes
            let valid = String(validating: bytes, as: UTF8.self) != nil
            #expect(valid == (fixture.streamBase64 == nil), "\(fixture.name): streamBase64 iff not UTF-8")
            #expect(
                String(decoding: bytes, as: UTF8.self) == fixture.stream,
                "\(fixture.name): stream matches its bytes")
        }
    }

    @Test("A fixture fed in one chunk", arguments: fixtures)
    func fixtureWhole(_ fixture: Fixture) throws {
        #expect(try Self.run(Self.whole(fixture.bytes)) == fixture.expected, "\(fixture.source)")
    }

    @Test("A fixture fed one byte at a time", arguments: fixtures)
    func fixtureBytewise(_ fixture: Fixture) throws {
        #expect(try Self.run(Self.bytewise(fixture.bytes)) == fixture.expected, "\(fixture.source)")
    }

    @Test("A fixture split in two at every byte", arguments: fixtures)
    func fixtureSplit(_ fixture: Fixture) async throws {
        let bytes = fixture.bytes
        let expected = fixture.expected
        // Every split of every fixture: seconds of parsing under the thread sanitizer, off the pool.
        let (wrongCuts, firstWrong) = try await offThePool { () throws -> ([Int], Outcome?) in
            var wrongCuts: [Int] = []
            var firstWrong: Outcome?
            for cut in 0...bytes.count {
                let outcome = try Self.run(Self.split(bytes, at: cut))
                if outcome != expected {
                    wrongCuts.append(cut)
                    if firstWrong == nil { firstWrong = outcome }
                }
            }
            return (wrongCuts, firstWrong)
        }
        #expect(
            wrongCuts.isEmpty,
            "\(fixture.source): wrong when cut at \(wrongCuts.prefix(20)) of \(bytes.count) bytes; first: \(firstWrong.map(String.init(describing:)) ?? "") instead of \(expected)"
        )
    }

    // MARK: - Reconnection flows of WPT (one stream after another on one parser)

    struct Flow: Sendable, CustomTestStringConvertible {
        var name: String
        var streams: [String]
        var events: [[Expected]]
        var testDescription: String { name }
    }

    /// The later responses of WPT tests that reconnect: the last event ID (and only a committed
    /// one) carries into the next stream, which the server echoes (resources/last-event-id.py).
    static let flows = [
        Flow(
            name: "format-field-id.any.js",
            streams: ["id: \u{2026}\nretry: 200\ndata: hello\n\n", "data: \u{2026}\n\n"],
            events: [
                [Expected(data: "hello", lastEventId: "\u{2026}")],
                [Expected(data: "\u{2026}", lastEventId: "\u{2026}")],
            ]),
        Flow(
            name: "format-field-id-2.any.js",
            streams: [
                "id: \u{2026}\nretry: 200\ndata: hello\n\n", "data: \u{2026}\n\n", "data: \u{2026}\n\n",
            ],
            events: [
                [Expected(data: "hello", lastEventId: "\u{2026}")],
                [Expected(data: "\u{2026}", lastEventId: "\u{2026}")],
                [Expected(data: "\u{2026}", lastEventId: "\u{2026}")],
            ]),
        Flow(
            name: "format-data-before-final-empty-line.any.js",
            streams: Array(repeating: "retry:1000\ndata:test1\n\nid:test\ndata:test2\n", count: 2),
            events: Array(repeating: [Expected(data: "test1")], count: 2)),
        Flow(
            name: "format-field-id-null.window.js (%00%00)",
            streams: Array(repeating: "id: \u{0}\u{0}\nretry: 200\ndata: hello\n\n", count: 2),
            events: Array(repeating: [Expected(data: "hello")], count: 2)),
        Flow(
            name: "format-field-id-null.window.js (%20%00)",
            streams: Array(repeating: "id:  \u{0}\nretry: 200\ndata: hello\n\n", count: 2),
            events: Array(repeating: [Expected(data: "hello")], count: 2)),
    ]

    @Test("A WPT reconnection: the streams one after another", arguments: flows)
    func reconnectionFlow(_ flow: Flow) throws {
        for useFinish in [true, false] {
            var parser = EventStreamParser()
            var seen: [[Expected]] = []
            for stream in flow.streams {
                var events: [Expected] = []
                try parser.consume(Data(stream.utf8)) { events.append(Expected($0)) }
                seen.append(events)
                if useFinish { parser.finish() } else { parser.startNewStream() }
            }
            #expect(
                seen == flow.events, "ending each stream with \(useFinish ? "finish()" : "startNewStream()")")
        }
    }

    // MARK: - maximumEventSize

    static func chunkings(_ text: String) -> [(String, [ArraySlice<UInt8>])] {
        let bytes = Array(text.utf8)
        return [("whole", whole(bytes)), ("byte by byte", bytewise(bytes))]
            + (1..<bytes.count).map { ("cut at \($0)", split(bytes, at: $0)) }
    }

    static func expectTooLarge(_ text: String, limit: Int, sourceLocation: SourceLocation = #_sourceLocation)
    {
        for (how, chunks) in chunkings(text) {
            let error = #expect(
                throws: NetLayerError.self, "\(text.debugDescription) \(how), limit \(limit)",
                sourceLocation: sourceLocation
            ) {
                _ = try run(chunks, maximumEventSize: limit)
            }
            if let error {
                #expect(error.code == .responseTooLarge, sourceLocation: sourceLocation)
            }
        }
    }

    static func expectAccepted(
        _ text: String, limit: Int, events expected: [Expected],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (how, chunks) in chunkings(text) {
            #expect(
                throws: Never.self, "\(text.debugDescription) \(how), limit \(limit)",
                sourceLocation: sourceLocation
            ) {
                let outcome = try run(chunks, maximumEventSize: limit)
                #expect(outcome.events == expected, "\(how)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theSizeLimitDefaultsTo16MiBAndIsAtLeastOne() {
        #expect(EventStreamParser().maximumEventSize == 16 << 20)
        #expect(EventStreamParser(maximumEventSize: 0).maximumEventSize == 1)
        #expect(EventStreamParser(maximumEventSize: -5).maximumEventSize == 1)
        #expect(EventStreamParser(maximumEventSize: 64).maximumEventSize == 64)
    }

    @Test func dataExactlyAtTheLimitIsAccepted() {
        // 16 bytes of data over two lines of 13 and 12 bytes.
        Self.expectAccepted(
            "data:12345678\ndata:1234567\n\n", limit: 16, events: [Expected(data: "12345678\n1234567")])
        Self.expectAccepted(
            "data:1234567890123456\n\n", limit: 21, events: [Expected(data: "1234567890123456")])
    }

    @Test func dataOverTheLimitThrowsResponseTooLarge() {
        // 17 bytes of data, each line within the limit.
        Self.expectTooLarge("data:12345678\ndata:12345678\n\n", limit: 16)
        Self.expectTooLarge("data:\ndata:\ndata:\n\n", limit: 1)
    }

    @Test func aLineExactlyAtTheLimitIsAccepted() {
        Self.expectAccepted(
            ":" + String(repeating: "x", count: 15) + "\ndata:1\n\n", limit: 16, events: [Expected(data: "1")]
        )
        Self.expectAccepted(
            "event:" + String(repeating: "e", count: 10) + "\ndata:1\n\n", limit: 16,
            events: [Expected(type: String(repeating: "e", count: 10), data: "1")])
    }

    /// Lines that are not data (a comment, an event type, an id; 17 bytes each) past a limit of 16.
    static let overlongLines = [
        ":" + String(repeating: "x", count: 16) + "\ndata:1\n\n",
        "event:" + String(repeating: "e", count: 11) + "\ndata:1\n\n",
        "id:" + String(repeating: "i", count: 14) + "\ndata:1\n\n",
    ]

    @Test("A line over the limit throws .responseTooLarge, however the chunks fall", arguments: overlongLines)
    func aLineOverTheLimitThrows(_ text: String) {
        for (how, chunks) in Self.chunkings(text) {
            let error = #expect(throws: NetLayerError.self, "\(how)") {
                _ = try Self.run(chunks, maximumEventSize: 16)
            }
            if let error { #expect(error.code == .responseTooLarge) }
        }
    }

    @Test func aLineWithoutItsEndThrowsOnceItPassesTheLimit() throws {
        var parser = EventStreamParser(maximumEventSize: 8)
        try parser.consume(Data("data:123".utf8)) { _ in Issue.record("no event yet") }
        let error = #expect(throws: NetLayerError.self) {
            try parser.consume(Data("4".utf8)) { _ in Issue.record("no event") }
        }
        #expect(error?.code == .responseTooLarge)
    }

    // MARK: - startNewStream

    @Test func startNewStreamKeepsTheIDAndRetryButDropsAHalfEvent() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(Data("id:7\nretry:250\ndata:a\n\nid:8\nevent:t\ndata:half\ndata:par".utf8)) {
            events.append($0)
        }
        #expect(events == [ServerSentEvent(id: "7", data: "a", retry: .milliseconds(250))])
        parser.startNewStream()
        #expect(parser.lastEventID == "7")
        #expect(parser.reconnectionTime == .milliseconds(250))
        events = []
        // The blank lines would dispatch "half\npar" (type t, id 8) had it been kept.
        try parser.consume(Data("\n\n".utf8)) { events.append($0) }
        #expect(events.isEmpty)
        try parser.consume(Data("data:b\n\n".utf8)) { events.append($0) }
        #expect(events == [ServerSentEvent(id: "7", event: "message", data: "b")])
        #expect(parser.lastEventID == "7")
    }

    @Test func startNewStreamDropsAHalfLine() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(Data("data:a\n".utf8)) { events.append($0) }
        try parser.consume(Data("dat".utf8)) { events.append($0) }
        parser.startNewStream()
        // Had "dat" been kept, this would read "data:b" as one more data line, then dispatch.
        try parser.consume(Data("a:b\n\n".utf8)) { events.append($0) }
        #expect(events.isEmpty)
    }

    @Test func startNewStreamStripsTheBOMOfTheNewStream() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(Data([0xEF, 0xBB, 0xBF] + Array("data:a\n\n".utf8))) { events.append($0) }
        parser.startNewStream()
        try parser.consume(Data([0xEF, 0xBB])) { events.append($0) }
        try parser.consume(Data([0xBF] + Array("data:b\n\n".utf8))) { events.append($0) }
        // Not at the start of a stream, a BOM is part of the field name ("\u{FEFF}data" is ignored).
        try parser.consume(Data([0xEF, 0xBB, 0xBF] + Array("data:c\n\n".utf8))) { events.append($0) }
        #expect(events == [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    @Test func finishDropsTheHalfEventAndANewStreamGoesOn() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(Data("id:1\ndata:a\n\nid:2\nretry:9\ndata:b\n".utf8)) { events.append($0) }
        parser.finish()
        #expect(parser.lastEventID == "1")
        #expect(parser.reconnectionTime == .milliseconds(9))
        try parser.consume(Data("\ndata:c\n\n".utf8)) { events.append($0) }
        #expect(
            events == [
                ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: "1", data: "c"),
            ])
    }

    // MARK: - Chunk boundaries

    static let bomSplits: [[[UInt8]]] = {
        let rest = Array("data:x\n\n".utf8)
        return [
            [[0xEF], [0xBB, 0xBF] + rest],
            [[0xEF, 0xBB], [0xBF] + rest],
            [[0xEF], [0xBB], [0xBF], rest],
            [[0xEF, 0xBB, 0xBF], rest],
            [[], [0xEF], [], [0xBB, 0xBF], rest],
            [[0xEF], [0xBB, 0xBF, 0x64], Array(rest.dropFirst())],
        ]
    }()

    @Test("A BOM split across chunks is still dropped", arguments: bomSplits)
    func bomSplitAcrossChunks(_ chunks: [[UInt8]]) throws {
        let outcome = try Self.run(chunks.map { $0[...] })
        #expect(outcome.events == [Expected(data: "x")])
    }

    @Test func aSplitSecondBOMOrAPartialBOMIsNotDropped() throws {
        // A second BOM, split, belongs to the field name: "\u{FEFF}data" is no field.
        let second = try Self.run([
            [0xEF, 0xBB, 0xBF, 0xEF], Array([0xBB, 0xBF] + "data:x\n\ndata:y\n\n".utf8)[...],
        ])
        #expect(second.events == [Expected(data: "y")])
        // EF BB then not BF: invalid UTF-8 (one U+FFFD) that starts the field name.
        let partial = try Self.run([[0xEF, 0xBB], Array("data:x\n\ndata:y\n\n".utf8)[...]])
        #expect(partial.events == [Expected(data: "y")])
        let one = try Self.run([[0xEF], Array("data:x\n\ndata:y\n\n".utf8)[...]])
        #expect(one.events == [Expected(data: "y")])
        // EF BB at the start of a value is kept (as U+FFFD), not taken for a BOM.
        let inValue = try Self.run([Array("data:".utf8)[...], [0xEF, 0xBB], Array("z\n\n".utf8)[...]])
        #expect(inValue.events == [Expected(data: "\u{FFFD}z")])
    }

    @Test func aPartialBOMAtTheEndOfAStreamDoesNotReachTheNext() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(Data([0xEF, 0xBB])) { events.append($0) }
        parser.finish()
        try parser.consume(Data("data:z\n\n".utf8)) { events.append($0) }
        #expect(events == [ServerSentEvent(data: "z")])
    }

    struct ChunkCase: Sendable, CustomTestStringConvertible {
        var chunks: [String]
        var events: [String]
        var testDescription: String { chunks.debugDescription }
    }

    static let lineEndCases = [
        // CR ends a chunk, LF starts the next: one line end.
        ChunkCase(chunks: ["data:a\r", "\ndata:b\n\n"], events: ["a\nb"]),
        ChunkCase(chunks: ["data:a\r", "\n", "data:b\r", "\n", "\r", "\n"], events: ["a\nb"]),
        ChunkCase(chunks: ["da", "ta:a\r", "\ndata:b\r\n\r", "\n"], events: ["a\nb"]),
        // An empty chunk between them changes nothing.
        ChunkCase(chunks: ["data:a\r", "", "\ndata:b\n\n"], events: ["a\nb"]),
        // CR then a non-LF: a line end, and the next line starts.
        ChunkCase(chunks: ["data:a\r", "data:b\n\n"], events: ["a\nb"]),
        ChunkCase(chunks: ["data:a\r", "\r"], events: ["a"]),
        ChunkCase(chunks: ["data:a\r", "\r", "\ndata:b\n\n"], events: ["a", "b"]),
        // Only one LF is taken: the next one is a blank line.
        ChunkCase(chunks: ["data:a\r", "\n", "\n"], events: ["a"]),
        ChunkCase(chunks: ["data:a\r", "\n\n"], events: ["a"]),
        // An LF at the start of a chunk after a plain LF is a blank line.
        ChunkCase(chunks: ["data:a\n", "\ndata:b\n\n"], events: ["a", "b"]),
        // A CR right after the BOM at the start of the stream.
        ChunkCase(chunks: ["\u{FEFF}\r", "\ndata:x\n\n"], events: ["x"]),
    ]

    @Test("Line ends at chunk boundaries", arguments: lineEndCases)
    func lineEndsAcrossChunks(_ testCase: ChunkCase) throws {
        let outcome = try Self.run(testCase.chunks.map { Array($0.utf8)[...] })
        #expect(outcome.events == testCase.events.map { Expected(data: $0) })
    }

    @Test func aBOMThenCRSplitFromItsLF() throws {
        let outcome = try Self.run([[0xEF], [0xBB, 0xBF, 0x0D], Array("\ndata:x\n\n".utf8)[...]])
        #expect(outcome.events == [Expected(data: "x")])
    }

    // MARK: - The event's own retry

    @Test func anEventCarriesOnlyTheRetryOfItsOwnLines() throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(
            Data("retry:100\ndata:a\n\ndata:b\n\nretry:x\ndata:c\n\nretry:5\n\ndata:d\n\n".utf8)
        ) {
            events.append($0)
        }
        #expect(events.map(\.retry) == [.milliseconds(100), nil, nil, nil])
        #expect(parser.reconnectionTime == .milliseconds(5))
    }
}
