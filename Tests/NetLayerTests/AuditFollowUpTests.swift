import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer
@testable import NetLayerTesting

/// Found by a hostile-input audit: the loopback server's pacing and progress across retries.
@Suite("Hardening: the loopback server's pacing and progress across retries")
struct AuditFollowUpTests {
    @Test func aDripWithPieceLengthsNearIntMaxSendsTheBodyInsteadOfTrapping() {
        let body = Data("hello".utf8)
        #expect(
            LoopbackResponse.Drip(pieceLengths: [1, Int.max], interval: .zero).pieces(of: body)
                == [Data("h".utf8), Data("ello".utf8)])
        #expect(LoopbackResponse.Drip(pieceLengths: [Int.max], interval: .zero).pieces(of: body) == [body])
        // A slice whose indices do not start at zero.
        let slice = Data("xxhello".utf8).dropFirst(2)
        #expect(
            LoopbackResponse.Drip(pieceLengths: [2, Int.max], interval: .zero).pieces(of: slice).map {
                Data($0)
            }
                == [Data("he".utf8), Data("llo".utf8)])
        #expect(
            LoopbackResponse.Drip(pieceSize: .max, interval: .zero).pieces(of: slice).map { Data($0) } == [
                body
            ])
    }

    @Test func progressAfterARetryDescribesTheBodyTheCallReturns() async throws {
        let count = LockedValue(0)
        let stub = StubTransport { _ in
            let attempt = count.withLock { value -> Int in
                value += 1
                return value
            }
            return attempt == 1 ? StubResponse(status: 503, body: Data(count: 5000)) : .text("ok")
        }
        let api = Resource(protocol: .http, domain: "127.0.0.1:9", transport: stub)
        let events = LockedValue<[TransferProgress]>([])
        let data = try await EchoTarget(resource: api, path: "/x").makeExecutor()
            .retry(.fixed(delay: .milliseconds(1)))
            .progress { event in events.withLock { $0.append(event) } }
            .execute()
        #expect(data == Data("ok".utf8))
        let downloads = events.withLock { $0 }.filter { $0.direction == .download }
        #expect(
            downloads.last
                == TransferProgress(
                    direction: .download, completedBytes: 2, expectedBytes: 2, isFinished: true))
        #expect(downloads.filter(\.isFinished).count == 1)
        #expect(count.withLock { $0 } == 2)
    }
}
