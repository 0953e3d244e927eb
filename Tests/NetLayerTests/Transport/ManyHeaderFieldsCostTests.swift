import Foundation
import NetLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// Linux URLSession (FoundationNetworking) takes time quadratic in the number of header fields
    /// of a response: 20,000 short fields (within libcurl's 300 KiB limit for a head) cost seconds of
    /// CPU, which NetLayer cannot avoid (Docs/Security.md, "What Linux URLSession does that NetLayer
    /// cannot fix"). The test checks both heads arrive whole and records the cost of four times the
    /// fields: about 16 times longer when quadratic (measured here: 13–22), about 4 when linear.
    @Suite("Platform faults: the cost of many header fields", .tags(.hardening))
    struct ManyHeaderFieldsCostTests {
        static let server = TestServerPool.make()

        @Test func twentyThousandFieldsCostSeconds() async throws {
            let server = try Self.server.get()
            let few = try await Self.timeAHead(withFields: 5_000, server: server)
            let many = try await Self.timeAHead(withFields: 20_000, server: server)
            let ratio = many / few
            let line = "5,000 fields: \(few) s, 20,000 fields: \(many) s (\(Int(ratio.rounded()))×)"
            #if os(Linux)
                print(
                    ratio > 8
                        ? "platform outcome: quadratic in the header fields (\(line))"
                        : "platform outcome: no longer quadratic? (\(line)) — check and update Docs/Security.md"
                )
            #else
                print("many header fields: \(line)")
            #endif
        }

        /// Sends a head with `count` fields `F<n>: 1` (and three more) and a 2-byte body; checks the
        /// response is whole and returns how long the call took, in seconds.
        static func timeAHead(withFields count: Int, server: TestServer) async throws -> Double {
            let path = uniquePath()
            var head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
            for index in 0..<count { head += "F\(index): 1\r\n" }
            let wire = head + "Content-Length: 2\r\nConnection: close\r\n\r\nok"
            server.route(path) { _ in .raw([.init(wire)]) }
            let start = ContinuousClock.now
            let response = try await TestAPI(server: server).target(path).makeExecutor().response()
            let took = ContinuousClock.now - start
            #expect(response.data == Data("ok".utf8))
            #expect(Array(response.headerFields).count == count + 3)
            #expect(response.headerFields["F\(count - 1)"] == "1")
            let (seconds, attoseconds) = took.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}
