import Foundation
import Testing

@testable import NetLayer

extension WireTests {
    /// Zero or negative timeouts are a typed error and nothing is sent; absurd ones are clamped to
    /// `Timeouts.maximum`; a tiny positive one times out. None of them crashes the process.
    @Suite("Timeout values: refused, clamped, never a crash", .tags(.hardening))
    struct TimeoutValueWireTests {
        static let server = TestServerPool.make()

        @Test(.tags(.hardening), arguments: [Duration.zero, .milliseconds(-1), .seconds(-5)])
        func zeroOrNegativeTimeoutsAreRefusedBeforeSending(_ value: Duration) async throws {
            // Crashed the process on Linux (watchdog cancelled the task right after resume()).
            let server = try Self.server.get()
            let path = uniquePath()
            let target = TestAPI(server: server).target(path)
            let idle = await expectRefused(
                target.makeExecutor(timeout: value), code: .invalidValue, server: server, path: path)
            #expect(idle?.part == "timeout")
            let total = await expectRefused(
                target.makeExecutor(resourceTimeout: value), code: .invalidValue, server: server, path: path)
            #expect(total?.part == "resourceTimeout")
            let resourceWide = TestAPI(server: server, options: ResourceOptions(timeout: value))
            _ = await expectRefused(
                resourceWide.target(path).makeExecutor(), code: .invalidValue, server: server, path: path)
        }

        @Test(.tags(.hardening)) func hugeTimeoutsAreClampedAndTheCallSucceeds() async throws {
            // `.seconds(Int64.max / 4)` crashed in _HTTPURLProtocol.configureEasyHandle.
            let server = try Self.server.get()
            let huge = Duration.seconds(Int64.max / 4)
            let path = uniquePath()
            let data = try await TestAPI(server: server).target(path)
                .makeExecutor(timeout: huge, resourceTimeout: huge).execute()
            #expect(!data.isEmpty)
            #expect(server.requests(path: path).count == 1)
            #expect(Timeouts.maximum == .seconds(7 * 86_400))
        }

        @Test(.tags(.hardening)) func tinyPositiveTimeoutTimesOutWithoutCrashing() async throws {
            let server = try Self.server.get()
            for value in [Duration.nanoseconds(1), .microseconds(1), .milliseconds(1)] {
                do {
                    try await TestAPI(server: server).target("/delay/200").makeExecutor(timeout: value)
                        .execute()
                    Issue.record("expected a timeout for \(value)")
                } catch let error as NetLayerError {
                    #expect(error.code == .timedOut, "\(error)")
                }
            }
        }
    }
}
