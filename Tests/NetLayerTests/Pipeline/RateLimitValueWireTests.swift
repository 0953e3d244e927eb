import Foundation
import NetLayer
import Testing

extension WireTests {
    /// A rate limit of zero or fewer requests, or a window of zero or less, fails every call and
    /// sends nothing; an absurdly long window is clamped.
    @Suite("Rate limit values: refused or clamped", .tags(.hardening))
    struct RateLimitValueWireTests {
        static let server = TestServerPool.make()

        @Test(
            .tags(.hardening),
            arguments: [
                RateLimit(requests: 0, per: .seconds(1)), RateLimit(requests: -3, per: .seconds(1)),
                RateLimit(requests: 5, per: .zero), RateLimit(requests: 5, per: .seconds(-1)),
            ])
        func invalidRateLimitsFailEveryCallAndSendNothing(_ limit: RateLimit) async throws {
            // Used to be clamped to 1 request, or to disable the limit without a word.
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server, rateLimits: [.perSecond(10), limit])
            for _ in 0..<2 {
                let error = await expectRefused(
                    api.target(path).makeExecutor(), code: .invalidValue, server: server, path: path)
                #expect(error?.part == "rateLimits[1]")
                #expect(error?.description.contains("\(limit.requests)") == true)
            }
        }

        @Test(.tags(.hardening)) func absurdRateLimitWindowIsClampedNotCrashing() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server, rateLimits: [RateLimit(requests: 2, per: .seconds(Int64.max))])
            try await api.target(path).makeExecutor().execute()
            try await api.target(path).makeExecutor().execute()
            #expect(server.requests(path: path).count == 2)
        }
    }
}
