import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    // In the serialized wire suite: its time bounds must not overlap a test that blocks the
    // cooperative pool on purpose (BusyPoolTimeoutTests).
    /// Hostile-servers item 5: a small body of deeply nested JSON must not cost seconds of CPU when
    /// decoded as `JSONValue`, at the top of a call or nested in a model. Before the fix, 500 nested
    /// arrays (1 KB) took seconds: each level tried Bool, Int64, Double and String first, and each
    /// failed attempt made `JSONDecoder` build an error with the whole coding path.
    /// Bounds are generous (a loaded two-core machine); the fixed code takes milliseconds.
    @Suite("Deep JSON decodes in linear time", .tags(.hardening))
    struct DeepJSONDecodesInLinearTimeTests {
        static let server = TestServerPool.make()

        /// A model holding a `JSONValue`, as users nest it.
        struct Envelope: Decodable, Sendable {
            let payload: JSONValue
            let more: JSONValue?
        }

        static func arrays(_ depth: Int, innermost: String = "") -> String {
            String(repeating: "[", count: depth) + innermost + String(repeating: "]", count: depth)
        }

        static func objects(_ depth: Int) -> String {
            String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        }

        /// The depth of the innermost value.
        static func depth(_ value: JSONValue) -> Int {
            var depth = 0
            var current = value
            while true {
                if let first = current[0] {
                    current = first
                } else if let member = current["a"] {
                    current = member
                } else {
                    return depth
                }
                depth += 1
            }
        }

        static func seconds(_ body: () throws -> Void) rethrows -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            try body()
            let elapsed = clock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        @Test func fiveHundredNestedArraysNestedInAModelDecodeQuickly() throws {
            let data = Data(("{\"payload\":" + Self.arrays(500) + "}").utf8)
            var decoded: Envelope?
            let elapsed = try Self.seconds { decoded = try JSONDecoder().decode(Envelope.self, from: data) }
            #expect(decoded.map { Self.depth($0.payload) } == 499)
            #expect(elapsed < 1, "took \(elapsed) s")
        }

        @Test func fiveHundredNestedObjectsNestedInAModelDecodeQuickly() throws {
            let data = Data(("{\"payload\":" + Self.objects(500) + "}").utf8)
            var decoded: Envelope?
            let elapsed = try Self.seconds { decoded = try JSONDecoder().decode(Envelope.self, from: data) }
            #expect(decoded.map { Self.depth($0.payload) } == 500)
            #expect(elapsed < 1, "took \(elapsed) s")
        }

        /// Many scalars deep down: each once cost failed attempts with a 500-key coding path.
        @Test func manyScalarsDeepInsideAModelDecodeQuickly() throws {
            let scalars = Array(repeating: #""s",1,2.5,true,null,{"k":[]}"#, count: 200).joined(
                separator: ",")
            let data = Data(("{\"payload\":" + Self.arrays(480, innermost: scalars) + "}").utf8)
            var decoded: Envelope?
            let elapsed = try Self.seconds { decoded = try JSONDecoder().decode(Envelope.self, from: data) }
            var innermost = try #require(decoded?.payload)
            while let first = innermost[0], first.arrayValue != nil { innermost = first }
            #expect(innermost.arrayValue?.count == 1200)
            #expect(
                innermost[0] == .string("s") && innermost[1] == .integer(1) && innermost[2] == .double(2.5))
            #expect(
                innermost[3] == .bool(true) && innermost[4] == .null
                    && innermost[5] == .object(["k": .array([])])
            )
            #expect(elapsed < 1, "took \(elapsed) s")
        }

        @Test func fiveHundredNestedArraysAtTheTopOfACallDecodeQuickly() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            // Four 500-deep arrays side by side: seconds each before the fix, so a bound that holds
            // under a fully loaded parallel run (this measures a whole call) still tells the two apart.
            let body = "[" + Array(repeating: Self.arrays(500), count: 4).joined(separator: ",") + "]"
            server.route(path) { _ in .json(body) }
            let clock = ContinuousClock()
            let start = clock.now
            let json = try await TestAPI(server: server).target(path).makeExecutor().execute(
                model: JSONValue.self)
            let elapsed = clock.now - start
            #expect(json.arrayValue?.count == 4)
            #expect(json[3].map(Self.depth) == 499)
            #expect(elapsed < .seconds(4), "took \(elapsed)")
        }

        @Test func aModelHoldingDeepJSONDecodesQuicklyThroughACall() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let deepArrays = "[" + Array(repeating: Self.arrays(400), count: 4).joined(separator: ",") + "]"
            let body = "{\"payload\":" + Self.objects(400) + "," + "\"more\":" + deepArrays + "}"
            server.route(path) { _ in .json(body) }
            let clock = ContinuousClock()
            let start = clock.now
            let envelope = try await TestAPI(server: server).target(path).makeExecutor().execute(
                model: Envelope.self)
            let elapsed = clock.now - start
            #expect(Self.depth(envelope.payload) == 400)
            #expect(envelope.more?.arrayValue?.count == 4)
            #expect(elapsed < .seconds(4), "took \(elapsed)")
        }

        /// Deeper than 512 (JSONDecoder's limit, and the parser's): a typed error with a body preview,
        /// never a stack overflow, at the top and nested.
        @Test func tooDeepJSONFailsWithDecodingFailed() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let body = Self.arrays(100_000)
            server.route(path) { _ in .json(body) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute(model: JSONValue.self)
            }
            #expect(error?.code == .decodingFailed)
            #expect(
                error?.message.hasPrefix(
                    "cannot decode JSONValue from GET http://\(server.hostAndPort)\(path): ")
                    == true)
            #expect(error?.message.contains("more than 512 nested arrays or objects at byte 512") == true)
            #expect(error?.message.contains("Body: [[[[") == true, "\(error?.message.prefix(300) ?? "")")
            #expect(error?.body?.count == 200_000)
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(Envelope.self, from: Data(("{\"payload\":" + body + "}").utf8))
            }
        }
    }
}
