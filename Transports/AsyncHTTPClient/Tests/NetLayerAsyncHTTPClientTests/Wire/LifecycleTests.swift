import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// Transports share the process's event loop group: making and shutting down many starts no
/// threads that stay.
@Suite struct LifecycleTests {
    #if os(Linux)
        /// The process's threads, from procfs.
        static func threadCount() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        }

        @Test func manyTransportsLeaveNoThreadsBehind() async throws {
            let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(status: 204) })
            defer { server.stop() }
            // The shared group's threads start with the first client.
            try await withTransport { transport in
                _ = try await transport.send(
                    TransportRequest(method: .get, url: server.url("/warm")), context: TransportContext())
            }
            let before = try Self.threadCount()
            for index in 0..<20 {
                try await withTransport { transport in
                    _ = try await transport.send(
                        TransportRequest(method: .get, url: server.url("/\(index)")),
                        context: TransportContext())
                }
            }
            // Threads of other tests running in parallel come and go; a leak would be 20 or more.
            #expect(try Self.threadCount() < before + 10)
            #expect(server.requests.count == 21)
        }
    #endif
}
