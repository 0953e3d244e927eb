import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

/// The bounded buffer between the session delegate and a body's reader, without a network.
@Suite("Body buffer")
struct BodyBufferTests {
    final class Calls: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var names: [String] = []
        var all: [String] { lock.withLock { names } }
        func record(_ name: String) { lock.withLock { names.append(name) } }
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("netlayer-buffer-\(UUID().uuidString)")
    }

    @Test func aProducerThatCannotPauseSpillsInOrderAndTheFileGoesOnceRead() async throws {
        let calls = Calls()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let buffer = BodyBuffer(
            limit: 100,
            control: BodyBuffer.Control(pause: nil, resume: nil, cancel: { calls.record("cancel") }),
            spillDirectory: directory)
        let chunks = (0..<50).map { Data(repeating: UInt8($0), count: 30) }
        for chunk in chunks { buffer.yield(chunk) }
        buffer.finish(nil)
        #expect(buffer.statistics.peakBytes <= 100)
        #expect(buffer.statistics.spilledBytes > 1000)
        var read = Data()
        while let chunk = try await buffer.next() { read.append(chunk) }
        #expect(read == chunks.reduce(Data(), +))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
        #expect(calls.all.isEmpty)
    }

    @Test func aReaderTooFarBehindFailsInsteadOfFillingTheDisk() async throws {
        let calls = Calls()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let buffer = BodyBuffer(
            limit: 100,
            control: BodyBuffer.Control(pause: nil, resume: nil, cancel: { calls.record("cancel") }),
            spillDirectory: directory, maximumSpill: 1000)
        for _ in 0..<100 { buffer.yield(Data(count: 50)) }
        #expect(calls.all == ["cancel"])
        var error: NetLayerError?
        do {
            while try await buffer.next() != nil {}
        } catch let failure as NetLayerError {
            error = failure
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func aPausableProducerIsPausedAboveTheLimitAndResumedAtHalf() async throws {
        let calls = Calls()
        let buffer = BodyBuffer(
            limit: 100,
            control: BodyBuffer.Control(
                pause: { calls.record("pause") }, resume: { calls.record("resume") },
                cancel: { calls.record("cancel") }))
        func waitFor(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(2)
            while calls.all.count < count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        for _ in 0..<5 { buffer.yield(Data(count: 30)) }
        #expect(buffer.isPaused)
        try await waitFor(1)
        #expect(calls.all == ["pause"])
        for _ in 0..<3 { _ = try await buffer.next() }
        #expect(buffer.isPaused, "60 bytes left: above half the limit")
        _ = try await buffer.next()
        #expect(!buffer.isPaused)
        try await waitFor(2)
        buffer.yield(Data(count: 90))
        try await waitFor(3)
        #expect(calls.all == ["pause", "resume", "pause"])
        buffer.cancel()
        try await waitFor(5)
        // Applied in order on one queue; a paused producer is resumed before it is cancelled.
        #expect(calls.all == ["pause", "resume", "pause", "resume", "cancel"])
    }

    @Test func aCancelledReaderIsReleasedOnlyWhenTheProducerHasEnded() async throws {
        let buffer = BodyBuffer(limit: 100, control: BodyBuffer.Control(pause: nil, resume: nil, cancel: {}))
        let reader = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        try await Task.sleep(for: .milliseconds(100))
        buffer.finish(nil)
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    /// Collects what a drain hands over, and the thread-independent order it came in.
    final class Sink: Sendable {
        let received = LockedValue(Data())
        var data: Data { received.withLock { $0 } }
        func take(_ chunk: Data) { received.withLock { $0.append(chunk) } }
    }

    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }

    @Test func aDrainTakesTheBufferedAndSpilledChunksFirstThenEachNewOneInOrder() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let buffer = BodyBuffer(
            limit: 100, control: BodyBuffer.Control(pause: nil, resume: nil, cancel: {}),
            spillDirectory: directory)
        let early = (0..<10).map { Data(repeating: UInt8($0), count: 30) }
        for chunk in early { buffer.yield(chunk) }
        #expect(buffer.statistics.spilledBytes > 0, "the early chunks reach the spill file")
        let sink = Sink()
        let drain = Task { try await buffer.drain(into: sink.take) }
        try await Self.eventually { sink.data.count == 300 }
        #expect(sink.data == early.reduce(Data(), +))
        // From here on each chunk goes straight to the sink, in the producer's call.
        let late = (10..<20).map { Data(repeating: UInt8($0), count: 30) }
        for chunk in late {
            let before = sink.data.count
            buffer.yield(chunk)
            #expect(sink.data.count == before + 30)
        }
        buffer.finish(nil)
        try await drain.value
        #expect(sink.data == (early + late).reduce(Data(), +))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }

    @Test func aSinkThatThrowsCancelsTheTransferAndTheDrainThrowsItsError() async throws {
        struct DiskFull: Error {}
        let calls = Calls()
        let buffer = BodyBuffer(
            limit: 100,
            control: BodyBuffer.Control(pause: nil, resume: nil, cancel: { calls.record("cancel") }))
        let drain = Task { try await buffer.drain(into: { _ in throw DiskFull() }) }
        try await Task.sleep(for: .milliseconds(20))
        buffer.yield(Data(count: 10))
        await #expect(throws: DiskFull.self) { try await drain.value }
        #expect(calls.all == ["cancel"])
        // The producer is ignored from then on.
        buffer.yield(Data(count: 10))
        #expect(calls.all == ["cancel"])
    }

    @Test func aDrainFinishedFromAnotherThreadReturnsOnlyAfterTheSinkInProgressReturned() async throws {
        // A deadline ends the body from the watchdog's thread while the producer writes a chunk to
        // the download's file: the drain must not return (and the file be closed) under that write.
        let buffer = BodyBuffer(limit: 100, control: BodyBuffer.Control(pause: nil, resume: nil, cancel: {}))
        let writing = TestGate()
        let inside = TestLocked(false)
        let finishedWriting = TestLocked(false)
        let drain = Task {
            try await buffer.drain(into: { _ in
                inside.withLock { $0 = true }
                writing.wait()
                finishedWriting.withLock { $0 = true }
            })
        }
        try await Task.sleep(for: .milliseconds(20))
        let producer = Thread { buffer.yield(Data(count: 10)) }
        producer.start()
        try await Self.eventually { inside.withLock { $0 } }
        buffer.finish(NetLayerError.timedOut("the total deadline of 1 s elapsed"))
        try await Task.sleep(for: .milliseconds(100))
        let endedEarly = TestLocked(false)
        let watcher = Task {
            _ = try? await drain.value
            endedEarly.withLock { $0 = !finishedWriting.withLock { $0 } }
        }
        try await Task.sleep(for: .milliseconds(100))
        writing.open()
        await #expect(throws: NetLayerError.self) { try await drain.value }
        await watcher.value
        #expect(!endedEarly.withLock { $0 }, "the drain returned while its sink was still writing")
        // Nothing reaches the sink after the end.
        buffer.yield(Data(count: 10))
    }

    @Test func aCancelledDrainEndsOnlyWhenTheProducerHasEndedAndNothingReachesTheSinkAfter() async throws {
        let calls = Calls()
        let buffer = BodyBuffer(
            limit: 100,
            control: BodyBuffer.Control(pause: nil, resume: nil, cancel: { calls.record("cancel") }))
        let sink = Sink()
        let drain = Task { try await buffer.drain(into: sink.take) }
        buffer.yield(Data(count: 10))
        try await Self.eventually { sink.data.count == 10 }
        drain.cancel()
        try await Self.eventually { calls.all == ["cancel"] }
        buffer.yield(Data(count: 10))
        #expect(sink.data.count == 10, "a chunk after cancellation reached the sink")
        try await Task.sleep(for: .milliseconds(50))
        buffer.finish(nil)
        await #expect(throws: CancellationError.self) { try await drain.value }
    }

    @Test func aDrainReportsTheTransfersError() async throws {
        let buffer = BodyBuffer(limit: 100, control: BodyBuffer.Control(pause: nil, resume: nil, cancel: {}))
        let sink = Sink()
        buffer.yield(Data(count: 5))
        let drain = Task { try await buffer.drain(into: sink.take) }
        try await Self.eventually { sink.data.count == 5 }
        buffer.finish(URLError(.networkConnectionLost))
        await #expect(throws: URLError.self) { try await drain.value }
    }
}
