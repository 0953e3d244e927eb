import EventSourceParser
import Foundation
import NetLayer

/// Parse throughput of NetLayer's `EventStreamParser` against mattt/EventSource's `Parser` on the
/// same generated stream (``EventStreamFixture``), per chunk size, in ABBA pairs; a correctness
/// check of both against what the WHATWG algorithm gives for the stream; a few spec probes; and
/// mallocs per event, counted in a child process (``EventStreamAllocations``).
enum EventStreamBenchmark {
    struct Settings {
        var bytes: Int
        var pairs: Int
        var chunkSizes: [Int]
        var allocations: Bool
        /// `BENCH_EVENTS_PROFILE=netlayer|eventsource`: a profiling aid, only that parser, `pairs`
        /// parses of the stream per chunk size, no statistics.
        var profile: Parser?

        /// `BENCH_EVENTS_BYTES` (64 MiB; quick 16 MiB), `BENCH_EVENTS_ROUNDS` (ABBA pairs per chunk
        /// size: 5; quick 2), `BENCH_EVENTS_CHUNKS` (16384,1024,65536: the first one is the headline),
        /// `BENCH_EVENTS_ALLOCS=0` skips the allocation child.
        static func load(quick: Bool, environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Settings
        {
            func count(_ name: String, _ full: Int, _ quickValue: Int) -> Int {
                guard let text = environment[name] else { return quick ? quickValue : full }
                guard let value = Int(text), value >= 1 else {
                    fail("\(name) must be an integer >= 1, not \(text)")
                }
                return value
            }
            var sizes = [16384, 1024, 65536]
            if let text = environment["BENCH_EVENTS_CHUNKS"] {
                sizes = text.split(separator: ",").map {
                    guard let size = Int($0.trimmingCharacters(in: .whitespaces)), size >= 1 else {
                        fail("BENCH_EVENTS_CHUNKS: chunk sizes must be integers >= 1, not \(text)")
                    }
                    return size
                }
                if sizes.isEmpty { fail("BENCH_EVENTS_CHUNKS is empty") }
            }
            return Settings(
                bytes: count("BENCH_EVENTS_BYTES", 64 << 20, 16 << 20),
                pairs: count("BENCH_EVENTS_ROUNDS", 5, 2),
                chunkSizes: sizes,
                allocations: environment["BENCH_EVENTS_ALLOCS"] != "0",
                profile: profileParser(environment["BENCH_EVENTS_PROFILE"]))
        }

        static func profileParser(_ text: String?) -> Parser? {
            switch text {
            case nil, "": return nil
            case "netlayer": return .netLayer
            case "eventsource": return .eventSource
            default: fail("BENCH_EVENTS_PROFILE must be netlayer or eventsource, not \(text!)")
            }
        }
    }

    /// What a parse produced: enough to tell two parses of the same bytes apart.
    struct Tally: Sendable, Equatable {
        var events = 0
        var dataBytes = 0
        var typeBytes = 0
        /// Strings the events own that are not small (more than 15 UTF-8 bytes): the data, and the
        /// type when it is not "message". Each is one allocation, whoever parses.
        var ownStrings = 0

        mutating func add(data: String, type: String) {
            events += 1
            dataBytes += data.utf8.count
            typeBytes += type.utf8.count
            if data.utf8.count > 15 { ownStrings += 1 }
            if type != "message" && type.utf8.count > 15 { ownStrings += 1 }
        }

        static func += (lhs: inout Tally, rhs: Tally) {
            lhs.events += rhs.events
            lhs.dataBytes += rhs.dataBytes
            lhs.typeBytes += rhs.typeBytes
            lhs.ownStrings += rhs.ownStrings
        }
    }

    enum Parser: String, CaseIterable {
        case netLayer = "NetLayer"
        case eventSource = "EventSource"
    }

    struct Run {
        var parser: Parser
        var seconds: Double
        var megabytesPerSecond: Double
    }

    struct ChunkResult {
        var chunkSize: Int
        var runs: [Run]
        /// NetLayer MB/s ÷ EventSource MB/s, per pair.
        var pairRatios: [Double]
        var ratio: Double { median(pairRatios) }
        func medianRate(_ parser: Parser) -> Double {
            median(runs.filter { $0.parser == parser }.map(\.megabytesPerSecond))
        }
    }

    // MARK: - Parsing

    static func parseNetLayer(_ chunks: [Data]) throws -> Tally {
        var parser = EventStreamParser()
        var tally = Tally()
        for chunk in chunks {
            try parser.consume(chunk) { event in tally.add(data: event.data, type: event.event) }
        }
        parser.finish()
        return tally
    }

    /// EventSource's `Parser` is an actor fed one byte at a time (`consume(_: UInt8)`), its events
    /// taken with `getNextEvent()`; its own loop does both after every byte, each with an `await`.
    /// Here both run inside the actor (``EventSource/Parser/feed(_:)``), one `await` per chunk: the
    /// parser's own work without an executor hop per byte, the most favourable way to drive it.
    static func parseEventSource(_ chunks: [Data]) async -> Tally {
        let parser = EventSource.Parser()
        var tally = Tally()
        for chunk in chunks {
            tally += await parser.feed(chunk)
        }
        await parser.finish()
        while let event = await parser.getNextEvent() {
            tally.add(data: event.data, type: event.event ?? "message")
        }
        return tally
    }

    /// EventSource as its own `EventSource.connect()` and `AsyncServerSentEventsSequence` drive the
    /// parser: `await consume(byte)` and `await getNextEvent()` for every byte. For scale only.
    static func parseEventSourcePerByte(_ chunks: [Data]) async -> Tally {
        let parser = EventSource.Parser()
        var tally = Tally()
        for chunk in chunks {
            for byte in chunk {
                await parser.consume(byte)
                while let event = await parser.getNextEvent() {
                    tally.add(data: event.data, type: event.event ?? "message")
                }
            }
        }
        await parser.finish()
        while let event = await parser.getNextEvent() {
            tally.add(data: event.data, type: event.event ?? "message")
        }
        return tally
    }

    // MARK: - The part

    static func run(quick: Bool, progress: @Sendable (String) -> Void) async throws -> [(String, String)] {
        let settings = Settings.load(quick: quick)
        progress("events: generating \(settings.bytes) bytes")
        let fixture = EventStreamFixture.make(size: settings.bytes)
        let total = Double(fixture.bytes.count)
        if let parser = settings.profile {
            for size in settings.chunkSizes {
                let chunks = fixture.chunks(of: size)
                let start = monotonicNanos()
                for _ in 0..<settings.pairs {
                    switch parser {
                    case .netLayer: blackHole(try parseNetLayer(chunks))
                    case .eventSource: blackHole(await parseEventSource(chunks))
                    }
                }
                let seconds = Double(monotonicNanos() - start) / 1e9
                print(
                    "profile \(parser.rawValue), \(chunkLabel(size)) chunks: "
                        + "\(Report.fixed(total * Double(settings.pairs) / seconds / 1e6, 1)) MB/s")
            }
            return []
        }
        print("")
        print(
            "Event stream parsing: \(fixture.bytes.count) bytes (\(Report.fixed(total / 1_048_576, 1)) MiB), "
                + "\(fixture.events.count) events + \(fixture.heartbeats) heartbeats, "
                + "\(settings.pairs) ABBA pairs per chunk size")

        // Correctness: both parsers against the fixture's own record of what the standard dispatches,
        // in 1,000-byte chunks (boundaries fall inside CRLFs and multibyte characters).
        let check = try await checkAgainstFixture(fixture, chunkSize: 1000)
        for line in check.lines { print(line) }
        await probes()

        var results: [ChunkResult] = []
        for size in settings.chunkSizes {
            let chunks = fixture.chunks(of: size)
            let warm = Array(chunks.prefix(max(1, (4 << 20) / size)))
            _ = try parseNetLayer(warm)
            _ = await parseEventSource(warm)
            let reference = try parseNetLayer(chunks)
            var runs: [Run] = []
            var ratios: [Double] = []
            for pair in 0..<settings.pairs {
                let order: [Parser] = pair % 2 == 0 ? [.eventSource, .netLayer] : [.netLayer, .eventSource]
                var rates: [Parser: Double] = [:]
                for parser in order {
                    let start = monotonicNanos()
                    let tally: Tally
                    switch parser {
                    case .netLayer: tally = try parseNetLayer(chunks)
                    case .eventSource: tally = await parseEventSource(chunks)
                    }
                    let seconds = Double(monotonicNanos() - start) / 1e9
                    if tally != reference {
                        throw BenchError(
                            "events: \(parser.rawValue) parsed \(tally), NetLayer's first parse \(reference)")
                    }
                    let rate = total / seconds / 1e6
                    rates[parser] = rate
                    runs.append(Run(parser: parser, seconds: seconds, megabytesPerSecond: rate))
                }
                ratios.append(rates[.netLayer]! / rates[.eventSource]!)
                progress(
                    "events: \(size)-byte chunks, pair \(pair + 1)/\(settings.pairs): NetLayer "
                        + "\(Report.fixed(rates[.netLayer]!, 1)) MB/s, EventSource \(Report.fixed(rates[.eventSource]!, 1)) MB/s"
                )
            }
            results.append(ChunkResult(chunkSize: size, runs: runs, pairRatios: ratios))
        }

        // For scale: EventSource driven as its own loop drives it (an await per byte), on 2 MiB.
        let sample = Array(
            fixture.chunks(of: settings.chunkSizes[0]).prefix(max(1, (2 << 20) / settings.chunkSizes[0])))
        let sampleBytes = Double(sample.reduce(0) { $0 + $1.count })
        let perByteStart = monotonicNanos()
        _ = await parseEventSourcePerByte(sample)
        let perByteRate = sampleBytes / (Double(monotonicNanos() - perByteStart) / 1e9) / 1e6

        var allocations: [EventStreamAllocations.Count] = []
        var allocationNote: String?
        if settings.allocations {
            progress("events: counting mallocs in a child process")
            do {
                allocations = try await EventStreamAllocations.measure(
                    bytes: settings.bytes, chunkSize: settings.chunkSizes[0])
            } catch {
                allocationNote = "\(error)"
            }
        }
        return report(
            results, fixture: fixture, check: check, perByteRate: perByteRate, allocations: allocations,
            allocationNote: allocationNote)
    }

    static let ratioGoal = 2.0
    static let allocationGoal = 1.0

    static func report(
        _ results: [ChunkResult], fixture: EventStreamFixture, check: Check, perByteRate: Double,
        allocations: [EventStreamAllocations.Count], allocationNote: String?
    ) -> [(String, String)] {
        print("")
        let widths = [8, 14, 16, 8, 16, 8]
        print(
            Report.row(
                ["chunk", "NetLayer MB/s", "EventSource MB/s", "ratio", "pairs min/max", "goal"],
                widths: widths))
        for result in results {
            print(
                Report.row(
                    [
                        chunkLabel(result.chunkSize), Report.fixed(result.medianRate(.netLayer), 1),
                        Report.fixed(result.medianRate(.eventSource), 1), Report.fixed(result.ratio, 2) + "x",
                        "\(Report.fixed(result.pairRatios.min()!, 2))/\(Report.fixed(result.pairRatios.max()!, 2))",
                        // A parser that fails the correctness check meets no goal, however fast.
                        Report.verdict(check.passed && result.ratio >= ratioGoal),
                    ], widths: widths))
        }
        print(
            "MB/s: median of the runs (MB = 10^6 bytes); ratio: median over pairs of NetLayer/EventSource "
                + "(goal >= \(Report.fixed(ratioGoal, 0))x)")
        print(
            "EventSource as its own loop drives it (an await per byte), \(chunkLabel(results[0].chunkSize)) chunks, "
                + "2 MiB: \(Report.fixed(perByteRate, 2)) MB/s")

        var fields: [(String, String)] = []
        let headline = results[0]
        fields += [
            ("events_ratio", Report.fixed(headline.ratio, 2)),
            ("events_netlayer_mbps", Report.fixed(headline.medianRate(.netLayer), 1)),
            ("events_eventsource_mbps", Report.fixed(headline.medianRate(.eventSource), 1)),
        ]
        for result in results.dropFirst() {
            let key = chunkKey(result.chunkSize)
            fields += [
                ("events_ratio_\(key)", Report.fixed(result.ratio, 2)),
                ("events_netlayer_mbps_\(key)", Report.fixed(result.medianRate(.netLayer), 1)),
                ("events_eventsource_mbps_\(key)", Report.fixed(result.medianRate(.eventSource), 1)),
            ]
        }
        fields.append(("events_check", check.passed ? "ok" : "mismatch"))
        if !check.passed {
            print("the correctness check failed (see the check lines above): no goal is met")
        }

        print("")
        if allocations.isEmpty {
            print("mallocs per event: not measured\(allocationNote.map { " (\($0))" } ?? "")")
            fields.append(("events_mallocs_per_event", "n/a"))
            return fields
        }
        let allocationWidths = [12, 9, 10, 12, 12, 16, 18, 8]
        print(
            Report.row(
                [
                    "parser", "events", "mallocs", "beyond own", "per event", "own strings/ev",
                    "beyond own/event", "goal",
                ],
                widths: allocationWidths))
        for count in allocations {
            let isNetLayer = count.parser == .netLayer
            print(
                Report.row(
                    [
                        count.parser.rawValue, "\(count.events)", "\(count.mallocs)",
                        "\(count.mallocs - count.ownStrings)",
                        Report.fixed(count.perEvent, 3), Report.fixed(count.ownPerEvent, 3),
                        Report.fixed(count.beyondOwnPerEvent, 3),
                        isNetLayer
                            ? Report.verdict(check.passed && count.beyondOwnPerEvent <= allocationGoal) : "",
                    ], widths: allocationWidths))
            let key = isNetLayer ? "events" : "events_eventsource"
            fields += [
                ("\(key)_mallocs_per_event", Report.fixed(count.perEvent, 3)),
                ("\(key)_mallocs_beyond_own", Report.fixed(count.beyondOwnPerEvent, 3)),
            ]
        }
        print(
            "mallocs: every malloc/calloc/realloc/posix_memalign of the whole parse (\(chunkLabel(results[0].chunkSize)) "
                + "chunks, a fresh parser, after a warm-up parse), counted by ordo-one/malloc-interposer "
                + "preloaded into a child process; own strings: the event's data, and its type when not "
                + "\"message\", that are longer than 15 UTF-8 bytes (shorter ones are small strings); "
                + "goal: <= \(Report.fixed(allocationGoal, 0)) beyond them for NetLayer")
        return fields
    }

    static func chunkLabel(_ size: Int) -> String {
        size % 1024 == 0 ? "\(size / 1024) KiB" : "\(size) B"
    }

    static func chunkKey(_ size: Int) -> String {
        size % 1024 == 0 ? "\(size / 1024)k" : "\(size)b"
    }

    // MARK: - Correctness

    struct Check {
        var passed: Bool
        var lines: [String]
    }

    /// Compares every event of both parsers with the fixture's record: count, data and type; the ID
    /// as each parser defines it (NetLayer: the last event ID, which persists, as the standard's
    /// `lastEventId`; EventSource: only an `id:` of the event itself).
    static func checkAgainstFixture(_ fixture: EventStreamFixture, chunkSize: Int) async throws -> Check {
        let chunks = fixture.chunks(of: chunkSize)
        var lines: [String] = []
        var passed = true

        var index = 0
        var mismatches = 0
        var firstMismatch: String?
        func compare(_ parser: Parser, type: String, data: String, id: String?) {
            defer { index += 1 }
            guard index < fixture.events.count else {
                mismatches += 1
                if firstMismatch == nil { firstMismatch = "an extra event #\(index): \(data.prefix(60))" }
                return
            }
            let expected = fixture.events[index]
            let expectedID: String?
            switch parser {
            case .netLayer: expectedID = expected.lastEventID.isEmpty ? nil : expected.lastEventID
            case .eventSource: expectedID = expected.hasOwnID ? expected.lastEventID : nil
            }
            if type != expected.type || data != expected.data || id != expectedID {
                mismatches += 1
                if firstMismatch == nil {
                    firstMismatch =
                        "event #\(index): got type \(type) id \(id ?? "nil") data \(data.debugDescription.prefix(80)); "
                        + "expected type \(expected.type) id \(expectedID ?? "nil") data \(expected.data.debugDescription.prefix(80))"
                }
            }
        }
        func verdict(_ parser: Parser) {
            let count = index
            let ok = mismatches == 0 && count == fixture.events.count
            passed = passed && ok
            lines.append(
                "check \(parser.rawValue): \(count) of \(fixture.events.count) events, \(mismatches) differing"
                    + (ok ? " (every event's type, data and ID as the standard gives them)" : "")
                    + (firstMismatch.map { "; first: \($0)" } ?? ""))
            index = 0
            mismatches = 0
            firstMismatch = nil
        }

        var netLayer = EventStreamParser()
        for chunk in chunks {
            try netLayer.consume(chunk) { compare(.netLayer, type: $0.event, data: $0.data, id: $0.id) }
        }
        netLayer.finish()
        verdict(.netLayer)

        let eventSource = EventSource.Parser()
        for chunk in chunks {
            for event in await eventSource.events(chunk) {
                compare(.eventSource, type: event.event ?? "message", data: event.data, id: event.id)
            }
        }
        await eventSource.finish()
        while let event = await eventSource.getNextEvent() {
            compare(.eventSource, type: event.event ?? "message", data: event.data, id: event.id)
        }
        verdict(.eventSource)
        return Check(passed: passed, lines: lines)
    }

    /// Small streams on which the two parsers differ, with what the WHATWG standard ("Interpreting an
    /// event stream") dispatches. Printed, not counted: the throughput stream avoids these points.
    static func probes() async {
        let cases: [(String, String, String)] = [
            ("data:\\ndata: x\\n\\n", "data:\ndata: x\n\n", #"one event, data "\nx""#),
            ("id: 7\\n\\n", "id: 7\n\n", "no event (empty data); last event ID 7"),
            ("event: ping\\n\\n", "event: ping\n\n", "no event (empty data)"),
            (
                "id: 1\\ndata: a\\n\\ndata: b\\n\\n", "id: 1\ndata: a\n\ndata: b\n\n",
                "two events, both with ID 1"
            ),
            ("data: a (no blank line, end)", "data: a", "no event (discarded at the end)"),
        ]
        print("spec points where the parsers differ (WHATWG = the standard's result):")
        for (label, text, standard) in cases {
            let chunk = Data(text.utf8)
            var netLayer = EventStreamParser()
            var netLayerEvents: [String] = []
            try? netLayer.consume(chunk) { netLayerEvents.append(describe($0.data, $0.id)) }
            netLayer.finish()
            let parser = EventSource.Parser()
            var eventSourceEvents = await parser.events(chunk)
            await parser.finish()
            while let event = await parser.getNextEvent() { eventSourceEvents.append(event) }
            let eventSource = eventSourceEvents.map { describe($0.data, $0.id) }
            print(
                "  \(label): WHATWG \(standard); NetLayer \(summary(netLayerEvents)); "
                    + "EventSource \(summary(eventSource))")
        }
    }

    static func describe(_ data: String, _ id: String?) -> String {
        "data \(data.debugDescription)" + (id.map { " id \($0)" } ?? "")
    }

    static func summary(_ events: [String]) -> String {
        events.isEmpty
            ? "no event"
            : "\(events.count) event\(events.count == 1 ? "" : "s"): " + events.joined(separator: ", ")
    }
}

extension EventSource.Parser {
    /// What EventSource's own loop does for each byte of `chunk` (`consume`, then `getNextEvent`
    /// until it returns nil), inside the actor: no `await` per byte.
    func feed(_ chunk: Data) -> EventStreamBenchmark.Tally {
        var tally = EventStreamBenchmark.Tally()
        chunk.withUnsafeBytes { bytes in
            for byte in bytes {
                consume(byte)
                while let event = getNextEvent() {
                    tally.add(data: event.data, type: event.event ?? "message")
                }
            }
        }
        return tally
    }

    /// The events completed in `chunk`, in order (for the checks).
    func events(_ chunk: Data) -> [EventSource.Event] {
        var events: [EventSource.Event] = []
        chunk.withUnsafeBytes { bytes in
            for byte in bytes {
                consume(byte)
                while let event = getNextEvent() { events.append(event) }
            }
        }
        return events
    }
}
