import Foundation
import NetLayer
import Testing

extension WireTests {
    /// `ResourceOptions.maximumResponseSize`: a collected body stops at the limit instead of filling
    /// the memory (found by a hostile-input audit: `execute()` held 512 MiB).
    @Suite("Collected bodies: the most bytes a call accepts", .tags(.hardening))
    struct MaximumResponseSizeTests {
        static let server = TestServerPool.make()

        @Test func aBodyPastTheLimitIsCutOffAndTheCallFails() async throws {
            let server = try Self.server.get()
            // 1 GiB offered: a call that did not stop would take the whole gigabyte. The server
            // pauses 2 ms between 256 KiB pieces (at most about 128 MB/s), so what it writes after
            // NetLayer cancels measures how long Linux URLSession took to stop reading, not how
            // fast loopback is: unpaced, 0.3 s of that under a loaded CI run was 150 MB.
            let size: Int64 = 1 << 30
            let api = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: 1 << 20))
            let path = "/pattern" + uniquePath()
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor(params: ["length": size, "pace": 2]).execute()
            }
            #expect(error?.code == .responseTooLarge)
            // Cut off early: the server saw the transfer end long before the 1 GiB was written (under
            // 128 MiB, twice the most seen under load).
            var record = server.patternRecords(path: path).last
            while record?.ended != true, ContinuousClock.now - start < .seconds(10) {
                try await Task.sleep(for: .milliseconds(20))
                record = server.patternRecords(path: path).last
            }
            #expect(record?.ended == true)
            #expect(record?.finished == false)
            #expect(
                (record?.bytesWritten ?? size) < 128 << 20,
                "the server wrote \(record?.bytesWritten ?? -1) bytes")
        }

        @Test func aBodyWithinTheLimitIsReturnedWhole() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: 4096))
            let path = uniquePath()
            server.route(path) { _ in .text(String(repeating: "a", count: 4096)) }
            let data = try await api.target(path).makeExecutor().execute()
            #expect(data == Data(String(repeating: "a", count: 4096).utf8))
            let books = try await TestAPI(
                server: server, options: ResourceOptions(maximumResponseSize: 1 << 20)
            )
            .target(path).makeExecutor().response()
            #expect(books.data.count == 4096)
        }

        @Test func aLimitOfZeroOrLessAcceptsOnlyAnEmptyBody() async throws {
            let server = try Self.server.get()
            let empty = uniquePath()
            server.route(empty) { _ in TestResponse(status: 204, headers: [], body: Data()) }
            let full = uniquePath()
            server.route(full) { _ in .text("x") }
            for limit in [0, -5] {
                let api = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: limit))
                #expect(try await api.target(empty).makeExecutor().execute().isEmpty)
                let error = await #expect(throws: NetLayerError.self) {
                    try await api.target(full).makeExecutor().execute()
                }
                #expect(error?.code == .responseTooLarge)
            }
        }
    }
}
