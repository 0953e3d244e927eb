import Foundation
import Testing

@testable import NetLayer

/// Every transition of the body buffer's state machine, without a buffer, a thread or a file: the
/// reader's continuation is a plain number.
@Suite("Body buffer state machine")
struct BodyBufferStateMachineTests {
    typealias Machine = BodyBufferStateMachine<Int>

    static func machine(
        limit: Int = 100, canPause: Bool = false, canSpill: Bool = false, maximumSpill: Int64 = 1000
    )
        -> Machine
    {
        Machine(limit: limit, canPause: canPause, canSpill: canSpill, maximumSpill: maximumSpill)
    }

    static func bytes(_ count: Int, _ value: UInt8 = 1) -> Data { Data(repeating: value, count: count) }

    // MARK: Producer and reader

    @Test func aChunkWaitsInMemoryUntilTheReaderTakesItInOrder() {
        var machine = Self.machine()
        guard case .buffered(pause: false) = machine.yield(Self.bytes(10, 1)) else {
            return #expect(Bool(false))
        }
        guard case .buffered(pause: false) = machine.yield(Self.bytes(20, 2)) else {
            return #expect(Bool(false))
        }
        #expect(machine.buffered == 30)
        guard case .chunk(let first, resume: false) = machine.read(1) else { return #expect(Bool(false)) }
        guard case .chunk(let second, resume: false) = machine.read(1) else { return #expect(Bool(false)) }
        #expect(first == Self.bytes(10, 1) && second == Self.bytes(20, 2))
        #expect(machine.buffered == 0)
    }

    @Test func aWaitingReaderGetsTheNextChunkDirectlyAndOnlyOnce() {
        var machine = Self.machine()
        guard case .wait = machine.read(7) else { return #expect(Bool(false)) }
        #expect(machine.hasWaiter)
        guard case .resume(7, let chunk) = machine.yield(Self.bytes(5)) else { return #expect(Bool(false)) }
        #expect(chunk.count == 5)
        #expect(!machine.hasWaiter)
        // The next chunk is buffered: nobody waits any more.
        guard case .buffered = machine.yield(Self.bytes(5)) else { return #expect(Bool(false)) }
    }

    @Test func aSecondReaderIsRefusedAndTheFirstKeepsWaiting() {
        var machine = Self.machine()
        guard case .wait = machine.read(1) else { return #expect(Bool(false)) }
        guard case .resolve(.failure(let error)) = machine.read(2) else { return #expect(Bool(false)) }
        #expect((error as? NetLayerError)?.code == .bodyConsumed)
        guard case .resume(1, _) = machine.yield(Self.bytes(1)) else { return #expect(Bool(false)) }
    }

    @Test func theEndReachesAWaitingReaderOnceAndBufferedChunksAreStillRead() {
        var machine = Self.machine()
        _ = machine.yield(Self.bytes(3))
        let result1 = machine.finish(nil)
        #expect(result1 == nil, "nobody waits")
        let result2 = machine.finish(NetLayerError(.transport, "late"))
        #expect(result2 == nil, "a second end is ignored")
        guard case .chunk = machine.read(1) else { return #expect(Bool(false)) }
        guard case .resolve(.success(nil)) = machine.read(1) else { return #expect(Bool(false)) }
        guard case .drop = machine.yield(Self.bytes(3)) else { return #expect(Bool(false)) }

        var waiting = Self.machine()
        guard case .wait = waiting.read(9) else { return #expect(Bool(false)) }
        let resumed = waiting.finish(NetLayerError(.transport, "reset"))
        #expect(resumed?.0 == 9)
        if case .failure(let error)? = resumed?.1 {
            #expect((error as? NetLayerError)?.code == .transport)
        } else {
            Issue.record("expected the transfer's error")
        }
        let result3 = waiting.finish(nil)
        #expect(result3 == nil, "the waiter is resumed once")
    }

    // MARK: Pause (a producer that can pause)

    @Test func aLaggingReaderPausesTheProducerAtTheLimitAndResumesItAtHalf() {
        var machine = Self.machine(canPause: true)
        for _ in 0..<3 { _ = machine.yield(Self.bytes(30)) }
        guard case .buffered(pause: true) = machine.yield(Self.bytes(30)) else { return #expect(Bool(false)) }
        guard case .buffered(pause: false) = machine.yield(Self.bytes(30)) else {
            return #expect(Bool(false), "the pause is wished once")
        }
        #expect(machine.wantsPause && machine.pauses == 1)
        let result4 = machine.applyWish()
        #expect(result4 == .pause)
        let result5 = machine.applyWish()
        #expect(result5 == nil, "already applied")
        // 150 bytes buffered: reads leave 120, 90, 60 (above half the limit), then 30.
        guard case .chunk(_, resume: false) = machine.read(1) else { return #expect(Bool(false)) }
        guard case .chunk(_, resume: false) = machine.read(1) else { return #expect(Bool(false)) }
        guard case .chunk(_, resume: false) = machine.read(1) else { return #expect(Bool(false)) }
        guard case .chunk(_, resume: true) = machine.read(1) else { return #expect(Bool(false)) }
        #expect(!machine.wantsPause)
        let result6 = machine.applyWish()
        #expect(result6 == .resume)
        #expect(machine.peak == 150)
    }

    @Test func aCancelledPausedProducerIsResumedBeforeItIsStopped() {
        var machine = Self.machine(limit: 10, canPause: true)
        guard case .buffered(pause: true) = machine.yield(Self.bytes(10)) else { return #expect(Bool(false)) }
        let result7 = machine.applyWish()
        #expect(result7 == .pause)
        let cancel = machine.cancel()
        #expect(cancel.stopProducer && !cancel.discardSpill)
        let result8 = machine.liftPauseForCancel()
        #expect(result8)
        let result9 = machine.liftPauseForCancel()
        #expect(!result9)
        let result10 = machine.applyWish()
        #expect(result10 == nil, "a stopped producer is not paused again")
    }

    @Test func aPauseWishThatArrivesAfterTheEndIsNotApplied() {
        var machine = Self.machine(limit: 10, canPause: true)
        _ = machine.yield(Self.bytes(10))
        _ = machine.finish(nil)
        let result11 = machine.applyWish()
        #expect(result11 == nil)
    }

    // MARK: Spill (a producer that cannot pause)

    @Test func pastTheLimitChunksSpillAndAreReadAfterMemoryThenTheFileGoes() {
        var machine = Self.machine(canSpill: true)
        guard case .buffered = machine.yield(Self.bytes(60)) else { return #expect(Bool(false)) }
        guard case .spill = machine.yield(Self.bytes(60)) else { return #expect(Bool(false)) }
        guard case .spill = machine.yield(Self.bytes(10)) else {
            return #expect(Bool(false), "once spilling, every chunk spills until the file is drained")
        }
        #expect(machine.spillUnread == 70 && machine.spilled == 70)
        guard case .chunk(let memory, _) = machine.read(1) else { return #expect(Bool(false)) }
        #expect(memory.count == 60)
        guard case .readSpill = machine.read(1) else { return #expect(Bool(false)) }
        #expect(machine.hasSpill)
        let result12 = machine.spillRead(60)
        #expect(!result12)
        let result13 = machine.spillRead(10)
        #expect(result13, "drained: remove the file")
        #expect(!machine.hasSpill)
        guard case .buffered = machine.yield(Self.bytes(10)) else { return #expect(Bool(false)) }
    }

    @Test func aReaderTooFarBehindFailsTheBody() {
        var machine = Self.machine(limit: 10, canSpill: true, maximumSpill: 25)
        _ = machine.yield(Self.bytes(10))
        guard case .spill = machine.yield(Self.bytes(20)) else { return #expect(Bool(false)) }
        guard case .fail(let error) = machine.yield(Self.bytes(20)) else { return #expect(Bool(false)) }
        #expect(error.code == .responseTooLarge)
    }

    @Test func aFailedSpillWriteIsNotCounted() {
        var machine = Self.machine(limit: 10, canSpill: true)
        _ = machine.yield(Self.bytes(10))
        guard case .spill = machine.yield(Self.bytes(20)) else { return #expect(Bool(false)) }
        machine.spillFailed(count: 20)
        #expect(!machine.hasSpill && machine.spilled == 0)
    }

    @Test func aProducerThatCanPauseNeverSpills() {
        var machine = Self.machine(limit: 10, canPause: true, canSpill: true)
        for _ in 0..<5 {
            guard case .buffered = machine.yield(Self.bytes(10)) else { return #expect(Bool(false)) }
        }
    }

    // MARK: Cancellation

    @Test func cancelDropsEverythingAndTheReaderWaitsForTheProducerToEnd() {
        var machine = Self.machine(canSpill: true)
        _ = machine.yield(Self.bytes(90))
        _ = machine.yield(Self.bytes(90))
        let cancel = machine.cancel()
        #expect(cancel.discardSpill && cancel.stopProducer)
        let result14 = machine.cancel()
        #expect(result14 == (false, false), "idempotent")
        guard case .wait = machine.read(3) else { return #expect(Bool(false)) }
        guard case .drop = machine.yield(Self.bytes(1)) else { return #expect(Bool(false)) }
        let resumed = machine.finish(nil)
        #expect(resumed?.0 == 3)
        guard case .failure(let error)? = resumed?.1 else { return #expect(Bool(false)) }
        #expect(error is CancellationError)
        guard case .resolve(.failure(let again)) = machine.read(4) else { return #expect(Bool(false)) }
        #expect(again is CancellationError)
    }

    @Test func cancelAfterTheEndDoesNotStopTheProducer() {
        var machine = Self.machine()
        _ = machine.finish(nil)
        let result15 = machine.cancel()
        #expect(result15 == (false, false))
    }

    // MARK: Drain

    @Test func aDrainTakesWhatWaitsThenInstallsItsSinkAndTheProducerCallsIt() {
        var machine = Self.machine(canPause: true, maximumSpill: 0)
        _ = machine.yield(Self.bytes(50, 1))
        _ = machine.yield(Self.bytes(50, 2))
        #expect(machine.wantsPause)
        let sink: Machine.Sink = { _ in }
        guard case .chunks(let pending, resume: true) = machine.takePendingOrInstall(sink) else {
            return #expect(Bool(false))
        }
        #expect(pending == [Self.bytes(50, 1), Self.bytes(50, 2)])
        guard case .installed = machine.takePendingOrInstall(sink) else { return #expect(Bool(false)) }
        guard case .sink = machine.yield(Self.bytes(5)) else { return #expect(Bool(false)) }
        #expect(machine.inSink)
        let result16 = machine.sinkReturned()
        #expect(result16 == nil, "not ended: the drain keeps waiting")
        let result17 = machine.drainWait(8)
        #expect(result17 == nil)
        let result18 = machine.finish(nil)
        #expect(result18?.0 == 8)
    }

    @Test func anEndWhileTheProducerIsInTheSinkIsDeliveredWhenTheSinkReturns() {
        var machine = Self.machine()
        guard case .installed = machine.takePendingOrInstall({ _ in }) else { return #expect(Bool(false)) }
        let result19 = machine.drainWait(5)
        #expect(result19 == nil)
        guard case .sink = machine.yield(Self.bytes(5)) else { return #expect(Bool(false)) }
        let result20 = machine.finish(NetLayerError(.timedOut, "deadline"))
        #expect(result20 == nil, "the producer is in the sink")
        let late = machine.sinkReturned()
        #expect(late?.0 == 5)
        guard case .failure(let error)? = late?.1 else { return #expect(Bool(false)) }
        #expect((error as? NetLayerError)?.code == .timedOut)
        let result21 = machine.sinkReturned()
        #expect(result21 == nil, "once")
    }

    @Test func aDrainOfACancelledAndEndedBodyIsCancelled() {
        var machine = Self.machine()
        _ = machine.cancel()
        _ = machine.finish(nil)
        guard case .cancelled = machine.takePendingOrInstall({ _ in }) else { return #expect(Bool(false)) }
    }

    @Test func aDrainAfterTheEndReturnsAtOnce() {
        var machine = Self.machine()
        _ = machine.finish(nil)
        guard case .installed = machine.takePendingOrInstall({ _ in }) else { return #expect(Bool(false)) }
        guard case .success(nil)? = machine.drainWait(1) else { return #expect(Bool(false)) }
    }
}
