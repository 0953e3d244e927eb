import Foundation
import Testing

@testable import NetLayer

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
}
