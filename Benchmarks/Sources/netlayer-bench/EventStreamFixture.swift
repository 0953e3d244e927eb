import Foundation

/// A recorded-style `text/event-stream`, generated in memory from a fixed seed, so every run and
/// every machine parses the same bytes.
///
/// The mix, per event (the share of events, not of bytes):
/// - 70% LLM token events, `data: {"choices":[{"delta":{"content":"…"}}]}`, tokens often
///   multibyte UTF-8 (`é`, `日本`, `🙂`, …); now and then `data: [DONE]`;
/// - 10% multi-line data (2 to 6 lines of text, some empty lines inside, multibyte words);
/// - 8% events with `id:` (a counter) and `event:` (short types such as `update`, and longer ones
///   such as `response.output_text.delta`, which are not small strings) and a JSON data line;
/// - 8% heartbeats: the comment `: ping` and a blank line (no event);
/// - 3% larger tool-call events (`event: tool_call`, 300 to 1,500 bytes of JSON);
/// - 1% events that also carry `retry: 3000`.
///
/// 10% of the events end their lines with CRLF, the rest with LF; 5% of field lines have no space
/// after the colon. Every event ends with its blank line. No first data line is empty and no event
/// lacks data (two points where mattt/EventSource departs from the standard; see
/// ``EventStreamBenchmark/probes``).
struct EventStreamFixture {
    /// What the WHATWG algorithm dispatches for one event of the fixture.
    struct Expected {
        var type: String
        var data: String
        /// The last event ID when it is dispatched (it persists across events).
        var lastEventID: String
        /// Whether this event itself had an `id:` line.
        var hasOwnID: Bool
    }

    var bytes: [UInt8]
    var events: [Expected]
    var heartbeats: Int

    /// SplitMix64: small, fast and the same everywhere.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let tokens = [
        "The", " the", " a", " of", " and", " to", " in", " is", " that", " for", " it", " with", " as",
        " on", " be", ",", ".", "\\n", " model", " token", " stream", " café", " naïve", " über",
        " 日本", "語", " 你好", " мир", " 🙂", " ✓", "—", " résumé", "ing", "ed", " parse", " event",
    ]
    static let words = [
        "server", "sent", "events", "stream", "line", "field", "data", "parser", "Grüße", "façade",
        "東京", "データ", "значение", "emoji", "🚀", "naïve", "coöperate", "text", "chunk", "bytes",
        "héllo", "world", "αβγ", "ok",
    ]
    static let shortTypes = ["update", "status", "progress", "delta", "message"]
    static let longTypes = [
        "response.output_text.delta", "conversation.item.created", "response.function_call",
    ]

    static func make(size: Int, seed: UInt64 = 0x5EED_5EED) -> EventStreamFixture {
        var random = Random(state: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 4096)
        var events: [Expected] = []
        var heartbeats = 0
        var lastEventID = ""
        var nextID = 1000

        while bytes.count < size {
            let crlf = random.below(100) < 10
            let end: [UInt8] = crlf ? [0x0D, 0x0A] : [0x0A]
            func field(_ name: String, _ value: String) {
                bytes.append(contentsOf: name.utf8)
                bytes.append(0x3A)
                if random.below(100) >= 5 { bytes.append(0x20) }
                bytes.append(contentsOf: value.utf8)
                bytes.append(contentsOf: end)
            }
            var type = "message"
            var dataLines: [String] = []
            var hasOwnID = false
            let kind = random.below(1000)
            if kind < 700 {
                if random.below(200) == 0 {
                    dataLines = ["[DONE]"]
                } else {
                    let token = random.pick(tokens)
                    dataLines = [#"{"choices":[{"delta":{"content":""# + token + #""}}]}"#]
                }
            } else if kind < 800 {
                for index in 0..<(2 + random.below(5)) {
                    if index > 0 && random.below(6) == 0 {
                        dataLines.append("")
                        continue
                    }
                    let count = 3 + random.below(18)
                    dataLines.append((0..<count).map { _ in random.pick(words) }.joined(separator: " "))
                }
            } else if kind < 880 {
                nextID += 1 + random.below(3)
                field("id", String(nextID))
                lastEventID = String(nextID)
                hasOwnID = true
                type = random.below(2) == 0 ? random.pick(shortTypes) : random.pick(longTypes)
                field("event", type)
                dataLines = [
                    #"{"sequence":\#(nextID),"status":"\#(random.pick(words))","progress":\#(random.below(101))}"#
                ]
            } else if kind < 960 {
                bytes.append(contentsOf: ": ping".utf8)
                bytes.append(contentsOf: end)
                bytes.append(contentsOf: end)
                heartbeats += 1
                continue
            } else if kind < 990 {
                type = "tool_call"
                field("event", type)
                let arguments = (0..<(40 + random.below(200))).map { _ in random.pick(words) }
                dataLines = [
                    #"{"name":"search","arguments":{"query":""# + arguments.joined(separator: " ") + #""}}"#
                ]
            } else {
                field("retry", "3000")
                dataLines = [#"{"choices":[{"delta":{"content":" retry"}}]}"#]
            }
            for line in dataLines { field("data", line) }
            bytes.append(contentsOf: end)
            events.append(
                Expected(
                    type: type, data: dataLines.joined(separator: "\n"), lastEventID: lastEventID,
                    hasOwnID: hasOwnID))
        }
        return EventStreamFixture(bytes: bytes, events: events, heartbeats: heartbeats)
    }

    /// The stream cut into `size`-byte chunks (the last one shorter), each its own `Data`, made
    /// before any clock starts.
    func chunks(of size: Int) -> [Data] {
        stride(from: 0, to: bytes.count, by: size).map { start in
            Data(bytes[start..<min(start + size, bytes.count)])
        }
    }
}
