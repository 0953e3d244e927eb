import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// Linux: the delegate queue that holds URLSession's network thread back when it falls behind.
    @Suite("Delegate queue backpressure (Linux)")
    struct BackpressureOperationQueueTests {
        /// Adds `count` empty operations from a Dispatch thread (one that may wait), counting each
        /// one added; returns when all are in.
        static func addFromDispatch(_ queue: OperationQueue, count: Int, added: LockedValue<Int>) async {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    for _ in 0..<count {
                        queue.addOperation {}
                        added.withLock { $0 += 1 }
                    }
                    continuation.resume()
                }
            }
        }

        /// Returns once every operation added so far has run (the queue is serial).
        static func drain(_ queue: OperationQueue) async {
            await withCheckedContinuation { continuation in queue.addOperation { continuation.resume() } }
        }

        @Test func aThreadAddingToAQueueThatIsFarBehindWaitsUntilItCatchesUp() async throws {
            let queue = DelegateQueue.make(name: "test")
            let backpressure = try #require(queue as? BackpressureOperationQueue)
            let gate = TestGate()
            queue.addOperation { gate.wait() }
            let added = LockedValue(0)
            let total = BackpressureOperationQueue.highWater * 3
            let start = ContinuousClock.now
            let adder = Task { await Self.addFromDispatch(queue, count: total, added: added) }
            // Up to the high-water mark the adding thread never waits; how soon it gets there
            // depends on the machine (a thread-sanitized run on a loaded CI machine took over 600 ms).
            let reachDeadline = ContinuousClock.now + .seconds(30)
            while added.withLock({ $0 }) < BackpressureOperationQueue.highWater - 1,
                ContinuousClock.now < reachDeadline
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Then it must be held back.
            try await Task.sleep(for: .milliseconds(600))
            let whileBlocked = added.withLock { $0 }
            // The blocked operation keeps the queue from making progress, so the adding thread goes
            // on once per stall limit only (the first operation, the gate, holds one place).
            let stalls = Int((ContinuousClock.now - start).seconds / BackpressureOperationQueue.stallLimit)
            #expect(whileBlocked >= BackpressureOperationQueue.highWater - 1)
            #expect(whileBlocked <= BackpressureOperationQueue.highWater + stalls + 1)
            gate.open()
            await adder.value
            await Self.drain(queue)
            #expect(added.withLock { $0 } == total)
            #expect(backpressure.peakPending < total / 2)
            #expect(backpressure.waitCount >= 1)
        }

        @Test func swiftTasksAndTheQueuesOwnOperationsNeverWait() async throws {
            let queue = DelegateQueue.make(name: "test")
            let backpressure = try #require(queue as? BackpressureOperationQueue)
            let gate = TestGate()
            queue.addOperation { gate.wait() }
            let start = ContinuousClock.now
            for _ in 0..<(BackpressureOperationQueue.highWater * 2) { queue.addOperation {} }
            #expect(ContinuousClock.now - start < .milliseconds(200))
            #expect(backpressure.waitCount == 0)
            gate.open()
            await Self.drain(queue)
            // An operation that adds more than the high-water mark: it would wait for itself.
            let elapsed = await withCheckedContinuation { continuation in
                queue.addOperation {
                    let started = ContinuousClock.now
                    for _ in 0..<(BackpressureOperationQueue.highWater * 2) { queue.addOperation {} }
                    continuation.resume(returning: ContinuousClock.now - started)
                }
            }
            #expect(elapsed < .milliseconds(200))
            await Self.drain(queue)
            #expect(backpressure.waitCount == 0)
            #expect(backpressure.peakPending > BackpressureOperationQueue.highWater)
        }
    }
#endif

extension WireTests {
    /// Linux: a download whose delegate falls behind holds the server back instead of queueing
    /// chunks in memory.
    @Suite("Download backpressure")
    struct DownloadBackpressureWireTests {
        static let server = TestServerPool.make()

        @Test func aDownloadWhoseDelegateFallsBehindHoldsTheServerBack() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let transport = URLSessionTransport()
            let path = "/pattern/\(uniquePath())"
            let length: Int64 = 128 << 20
            let executor = TestAPI(server: server, transport: transport).target(path).makeExecutor(params: [
                "length": length, "seed": 9,
            ])
            let download = Task { try await executor.download(to: scratch.file("held.bin")) }
            // Stall the delegate queue once the response has begun, as a slow disk would.
            try await TransferWireTests.waitUntil {
                (server.patternRecords(path: path).last?.bytesWritten ?? 0) > 0
            }
            let stalled = TestGate()
            transport.delegateQueue.addOperation { stalled.wait() }
            // Let the server run as far as the client lets it: until it stops or sends everything.
            var previous: Int64 = -1
            var sent: Int64 = 0
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(150))
                sent = server.patternRecords(path: path).last?.bytesWritten ?? 0
                if sent == previous || sent == length { break }
                previous = sent
            }
            stalled.open()
            let result = try await download.value
            #expect(result.fileSize == length)
            let (checksum, size) = try TestPattern.checksumOfFile(scratch.file("held.bin"))
            #expect(size == length && checksum == TestPattern.checksum(seed: 9, range: 0..<length))
            #if canImport(FoundationNetworking)
                // Socket buffers, libcurl's and 256 queued chunks (4 MiB), and the few let in by the
                // stall limit: far below the whole body, which a queue without backpressure takes in.
                #expect(sent < 48 << 20, "the server sent \(sent) bytes while the delegate was stalled")
            #else
                // Apple platforms: the session buffers on its own terms; the bytes still arrive whole.
                #expect(sent > 0)
            #endif
        }
    }
}
