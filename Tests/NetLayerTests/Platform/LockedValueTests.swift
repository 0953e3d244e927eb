import Foundation
import Testing

@testable import NetLayer

/// The lock-guarded box under the library's shared state, and the single-pass claim of a response
/// body built on it.
@Suite("Locked value")
struct LockedValueTests {
    @Test func incrementsFromManyThreadsAreNeverLost() {
        let box = LockedValue(0)
        let threads = 8
        let increments = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments { box.withLock { $0 += 1 } }
        }
        #expect(box.withLock { $0 } == threads * increments)
    }

    @Test func aCopyOfTheHandleSharesTheValue() {
        let box = LockedValue([String]())
        let copy = box
        copy.withLock { $0.append("from the copy") }
        #expect(box.withLock { $0 } == ["from the copy"])
    }

    @Test func theValueIsReleasedWithTheLastHandle() {
        final class Tracked: Sendable {}
        weak var weakValue: Tracked?
        do {
            let value = Tracked()
            weakValue = value
            let box = LockedValue<Tracked?>(value)
            #expect(box.withLock { $0 } === value)
        }
        #expect(weakValue == nil)
    }

    @Test func anErrorThrownUnderTheLockReleasesIt() {
        struct Refused: Error {}
        let box = LockedValue(1)
        #expect(throws: Refused.self) {
            try box.withLock { _ in throw Refused() }
        }
        // Taken again at once: the throw unlocked it.
        #expect(box.withLock { $0 } == 1)
    }

    @Test func anInMemoryBodyIsReadOnceAndASecondReaderIsRefused() async throws {
        let body = ResponseBody(Data("once".utf8))
        #expect(try await body.collect() == Data("once".utf8))
        await #expect(throws: NetLayerError.self) { _ = try await body.collect() }
        var iterator = body.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            Issue.record("a third reader got the body")
        } catch let error as NetLayerError {
            #expect(error.code == .bodyConsumed)
        }
    }

    @Test func theFinishActionOfAStreamedBodyRunsOnceWhenItEnds() async throws {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        let body = ResponseBody(chunks: stream)
        let runs = LockedValue(0)
        body.whenFinished { runs.withLock { $0 += 1 } }
        continuation.yield(Data("a".utf8))
        continuation.finish()
        #expect(try await body.collect() == Data("a".utf8))
        body.cancel()
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func aFinishActionRegisteredAfterTheBodyWasCancelledRunsAtOnce() {
        // A concurrency slot is released this way: registered after the transport returned the
        // body, which another thread may have cancelled already. It used to wait forever.
        let (stream, _) = AsyncStream<Data>.makeStream()
        let body = ResponseBody(chunks: stream)
        body.cancel()
        let runs = LockedValue(0)
        body.whenFinished { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 1)
        body.cancel()
        #expect(runs.withLock { $0 } == 1)
    }
}
