import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// A collected call with no `maximumResponseSize` held 4.26 GB of an endless body: collected
    /// calls now have a default limit (64 MiB), and the error says how to raise it.
    @Suite("Collected bodies: a default limit", .tags(.hardening), .timeLimit(.minutes(1)))
    struct DefaultResponseSizeTests {
        static let server = TestServerPool.make()

        /// A body of `length` zero bytes, made piece by piece, never held whole by the server.
        static func zeros(_ length: Int64) -> LoopbackResponse {
            var response = LoopbackResponse()
            response.streamedBody = LoopbackResponse.StreamedBody(length: length) { range in
                Data(count: Int(range.count))
            }
            response.streamedBody?.pieceSize = 1 << 20
            return response
        }

        @Test func theDefaultOptionsLimitACollectedBodyTo64MiB() {
            #expect(ResourceOptions().maximumResponseSize == 64 << 20)
            #expect(ResourceOptions.defaultMaximumResponseSize == 64 << 20)
        }

        @Test(arguments: [nil, Duration.seconds(30)])
        func anEndlessBodyEndsAtTheDefaultLimitWithAnErrorThatSaysHowToRaiseIt(timeout: Duration?)
            async throws
        {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in Self.zeros(8 << 30) }  // 8 GiB: "endless" for this call
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                // NetLayer's default options (TestAPI alone lifts the limit for its other suites).
                try await TestAPI(server: server, options: ResourceOptions()).target(path)
                    .makeExecutor(timeout: timeout).execute()
            }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("ResourceOptions.maximumResponseSize is 67108864 bytes") == true)
            #expect(error?.message.contains("nil lifts it") == true, "\(error?.message ?? "")")
            #expect(error?.attempts == 1)
            #expect(ContinuousClock.now - start < .seconds(30))
        }

        @Test func nilLiftsTheLimit() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let length: Int64 = (64 << 20) + 4096
            server.route(path) { _ in Self.zeros(length) }
            let api = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: nil))
            let data = try await api.target(path).makeExecutor().execute()
            #expect(Int64(data.count) == length)
        }
    }
}
