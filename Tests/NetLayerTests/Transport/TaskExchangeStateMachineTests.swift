import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every transition of a delegate-driven task's state machine, without URLSession, a socket or a
/// clock: the caller's continuation is a number, the body a string, and time is passed in.
@Suite("Task exchange state machine")
struct TaskExchangeStateMachineTests {
    typealias Machine = TaskExchangeStateMachine<Int, String>

    let t0 = ContinuousClock.now

    func started(cleanup: Bool = false) -> Machine {
        var machine = Machine(hasCleanup: cleanup, now: t0)
        let result1 = machine.start(1, now: t0)
        #expect(result1 == .resumeTask)
        let result2 = machine.taskResumed()
        #expect(result2 == nil)
        return machine
    }

    static let head = ResponseHead(statusCode: 200, url: URL(string: "http://example.test/"))

    // MARK: Start and cancellation

    @Test func cancelBeforeStartStartsNothingAndCancelsNoTask() {
        var machine = Machine(hasCleanup: true, now: t0)
        let action = machine.cancel()
        #expect(action.delivery == nil && action.cancelTask == nil && !action.cleanup)
        let result3 = machine.start(1, now: t0)
        #expect(result3 == .refused(cleanup: true), "the caller runs the cleanup once")
        let result4 = machine.start(2, now: t0)
        #expect(result4 == .refused(cleanup: false))
        let again = machine.cancel()
        #expect(again.delivery == nil && again.cancelTask == nil && !again.cleanup)
        let result5 = machine.armWatchdog(Timeouts(idle: .seconds(1)), now: t0)
        #expect(!result5)
    }

    @Test func aCancelWhileTheTaskIsBeingResumedReachesTheTaskAfterResumeReturned() {
        var machine = Machine(hasCleanup: false, now: t0)
        let result6 = machine.start(1, now: t0)
        #expect(result6 == .resumeTask)
        let action = machine.cancel()
        guard case .failHead(1, let error)? = action.delivery else { return #expect(Bool(false)) }
        #expect(error is CancellationError)
        #expect(action.cancelTask == nil, "not while resume() runs")
        let result7 = machine.taskResumed()
        #expect(result7 == .global)
        let result8 = machine.cancel()
        #expect(result8.cancelTask == nil, "the task is cancelled once")
    }

    @Test func cancelWhileWaitingForTheHeadFailsTheCallerOnceAndCancelsTheTaskOnce() {
        var machine = started(cleanup: true)
        let action = machine.cancel()
        guard case .failHead(1, let error)? = action.delivery else { return #expect(Bool(false)) }
        #expect(error is CancellationError)
        #expect(action.cleanup && action.cancelTask == .global)
        let again = machine.cancel()
        #expect(again.delivery == nil && !again.cleanup && again.cancelTask == nil)
        // URLSession's own report comes later and finds nothing to deliver.
        let completion = machine.complete(error: URLError(.cancelled))
        #expect(completion.delivery == nil && !completion.cleanup && completion.cancelTask == nil)
    }

    // MARK: Head and body

    @Test func bytesBeforeTheHeadGoToTheBodyFirst() {
        var machine = started()
        let early = machine.receivedBody(Data("ab".utf8), now: t0)
        #expect(early.delivery == nil)
        #expect(early.progress?.received == 2)
        let head = machine.receivedFinalHead(body: "body", expectedLength: 10, now: t0)
        guard case .head(1, "body", let bytes)? = head.delivery else { return #expect(Bool(false)) }
        #expect(bytes == Data("ab".utf8))
        let chunk = machine.receivedBody(Data("cd".utf8), now: t0)
        guard case .chunk("body", let data)? = chunk.delivery else { return #expect(Bool(false)) }
        #expect(data == Data("cd".utf8))
        #expect(chunk.progress?.received == 4 && chunk.progress?.expected == 10)
        let end = machine.complete(error: nil)
        guard case .finishBody("body", nil)? = end.delivery else { return #expect(Bool(false)) }
    }

    @Test func interimHeadsAreSkippedUntilThereAreTooMany() {
        var machine = started(cleanup: true)
        for _ in 0..<Machine.maximumInterimResponses {
            let action = machine.receivedInterimHead(now: t0)
            #expect(action.delivery == nil && action.cancelTask == nil)
        }
        let tooMany = machine.receivedInterimHead(now: t0)
        guard case .failHead(1, let error)? = tooMany.delivery else { return #expect(Bool(false)) }
        #expect((error as? NetLayerError)?.code == .transport)
        #expect(tooMany.cleanup && tooMany.cancelTask == .global)
    }

    @Test func aHeadAfterTheCallFailedIsDroppedAndSoAreItsBytes() {
        var machine = started()
        _ = machine.cancel()
        let result9 = machine.receivedFinalHead(body: "late", expectedLength: nil, now: t0)
        #expect(result9.delivery == nil)
        let chunk = machine.receivedBody(Data("x".utf8), now: t0)
        #expect(chunk.delivery == nil && chunk.progress == nil)
        let result10 = machine.sentBody(now: t0)
        #expect(!result10)
    }

    @Test func aSecondHeadIsIgnored() {
        var machine = started()
        _ = machine.receivedFinalHead(body: "first", expectedLength: nil, now: t0)
        let result11 = machine.receivedFinalHead(body: "second", expectedLength: nil, now: t0)
        #expect(result11.delivery == nil)
        #expect(machine.streamingBody == "first")
    }

    // MARK: Completion

    @Test func completionBeforeTheHeadHandsOnTheWholeResponseOrTheError() {
        var whole = started(cleanup: true)
        _ = whole.receivedBody(Data("all".utf8), now: t0)
        let action = whole.complete(error: nil)
        guard case .whole(1, nil, let body)? = action.delivery else { return #expect(Bool(false)) }
        #expect(body == Data("all".utf8) && action.cleanup && action.cancelTask == nil)

        var failed = started()
        let failure = failed.complete(error: URLError(.cannotConnectToHost))
        guard case .failHead(1, let error)? = failure.delivery else { return #expect(Bool(false)) }
        #expect((error as? URLError)?.code == .cannotConnectToHost)
    }

    @Test func aSecondCompletionIsIgnored() {
        var machine = started(cleanup: true)
        _ = machine.receivedFinalHead(body: "body", expectedLength: nil, now: t0)
        let result12 = machine.complete(error: nil)
        #expect(result12.delivery != nil)
        let second = machine.complete(error: URLError(.networkConnectionLost))
        #expect(second.delivery == nil && !second.cleanup && second.cancelTask == nil)
        let result13 = machine.cancel()
        #expect(result13.delivery == nil, "nor does a cancel after the end do anything")
        let result14 = machine.cancel()
        #expect(result14.cancelTask == nil)
    }

    @Test func aChallengedTaskCancelledByURLSessionEndsWithTheWholeChallengeResponse() {
        // Linux: the session delegate cancels a challenged task; its 401 is a response, not an error.
        var beforeHead = started()
        let challenge = ResponseHead(statusCode: 401, url: URL(string: "http://example.test/"))
        _ = beforeHead.receivedBody(Data("log in".utf8), now: t0)
        beforeHead.challenged(challenge)
        let action = beforeHead.complete(error: URLError(.cancelled))
        guard case .whole(1, let head?, let body)? = action.delivery else { return #expect(Bool(false)) }
        #expect(head.statusCode == 401 && body == Data("log in".utf8))

        var streaming = started()
        _ = streaming.receivedFinalHead(body: "401 body", expectedLength: nil, now: t0)
        streaming.challenged(challenge)
        guard case .finishBody("401 body", nil)? = streaming.complete(error: URLError(.cancelled)).delivery
        else { return #expect(Bool(false)) }
    }

    @Test func aCancelledCallEndsWithCancellationWhateverURLSessionReports() {
        var machine = started()
        _ = machine.receivedFinalHead(body: "body", expectedLength: nil, now: t0)
        let cancel = machine.cancel()
        guard case .finishBody("body", let error?)? = cancel.delivery else { return #expect(Bool(false)) }
        #expect(error is CancellationError)
        let result15 = machine.complete(error: URLError(.cancelled))
        #expect(result15.delivery == nil)
    }

    // MARK: Watchdog

    @Test func theIdleTimeoutAfterTheHeadEndsTheBodyAndCancelsTheTaskOnTheTimeoutQueue() {
        var machine = started(cleanup: true)
        let result16 = machine.armWatchdog(Timeouts(idle: .milliseconds(100)), now: t0)
        #expect(result16)
        _ = machine.receivedFinalHead(body: "body", expectedLength: nil, now: t0)
        guard case .check(let wait) = machine.watchdogTick(now: t0 + .milliseconds(40), bodyPaused: false)
        else {
            return #expect(Bool(false))
        }
        #expect(wait == .milliseconds(60))
        // Data at 80 ms moves the idle deadline to 180 ms.
        _ = machine.receivedBody(Data("x".utf8), now: t0 + .milliseconds(80))
        guard case .check = machine.watchdogTick(now: t0 + .milliseconds(150), bodyPaused: false) else {
            return #expect(Bool(false))
        }
        guard
            case .timedOut(let action) = machine.watchdogTick(now: t0 + .milliseconds(180), bodyPaused: false)
        else { return #expect(Bool(false)) }
        guard case .finishBody("body", let error?)? = action.delivery else { return #expect(Bool(false)) }
        #expect((error as? NetLayerError)?.code == .timedOut)
        #expect(action.cleanup && action.cancelTask == .timeouts)
        guard case .stop = machine.watchdogTick(now: t0 + .seconds(1), bodyPaused: false) else {
            return #expect(Bool(false), "one timeout, then the watchdog stops")
        }
        // URLSession's report of the cancelled task changes nothing.
        let result17 = machine.complete(error: URLError(.cancelled))
        #expect(result17.delivery == nil)
        #expect(machine.timeoutReason?.contains("idle timeout") == true)
    }

    @Test func theTotalDeadlineReachesACallerWaitingForTheHead() {
        var machine = started()
        let result18 = machine.armWatchdog(Timeouts(idle: .seconds(10), total: .milliseconds(300)), now: t0)
        #expect(result18)
        guard case .check(let wait) = machine.watchdogTick(now: t0 + .milliseconds(200), bodyPaused: false)
        else {
            return #expect(Bool(false))
        }
        #expect(wait == .milliseconds(100))
        guard
            case .timedOut(let action) = machine.watchdogTick(now: t0 + .milliseconds(300), bodyPaused: false)
        else { return #expect(Bool(false)) }
        guard case .failHead(1, let error)? = action.delivery else { return #expect(Bool(false)) }
        #expect((error as? NetLayerError)?.code == .timedOut)
    }

    @Test func aPausedBodyIsNotIdle() {
        var machine = started()
        _ = machine.armWatchdog(Timeouts(idle: .milliseconds(100)), now: t0)
        _ = machine.receivedFinalHead(body: "body", expectedLength: nil, now: t0)
        guard case .check = machine.watchdogTick(now: t0 + .milliseconds(150), bodyPaused: true) else {
            return #expect(Bool(false))
        }
        guard case .timedOut = machine.watchdogTick(now: t0 + .milliseconds(250), bodyPaused: false) else {
            return #expect(Bool(false))
        }
    }

    @Test func aWatchdogIsNotArmedAfterTheEndAndStopsAfterIt() {
        var ended = started()
        _ = ended.complete(error: URLError(.cannotConnectToHost))
        let result19 = ended.armWatchdog(Timeouts(idle: .milliseconds(1)), now: t0)
        #expect(!result19)

        var machine = started()
        let result20 = machine.armWatchdog(Timeouts(total: .milliseconds(10)), now: t0)
        #expect(result20)
        _ = machine.receivedFinalHead(body: "body", expectedLength: nil, now: t0)
        _ = machine.complete(error: nil)
        guard case .stop = machine.watchdogTick(now: t0 + .seconds(1), bodyPaused: false) else {
            return #expect(Bool(false))
        }
        let result21 = machine.armWatchdog(Timeouts(), now: t0)
        #expect(!result21, "nothing to enforce")
    }

    @Test func aWatchdogOnATaskNotStartedYetCancelsIt() {
        // The transport starts the watchdog right after the task; a timeout before cancels the task.
        var machine = Machine(hasCleanup: false, now: t0)
        let result22 = machine.armWatchdog(Timeouts(idle: .milliseconds(10)), now: t0)
        #expect(result22)
        guard
            case .timedOut(let action) = machine.watchdogTick(now: t0 + .milliseconds(20), bodyPaused: false)
        else { return #expect(Bool(false)) }
        #expect(action.delivery == nil && action.cancelTask == .timeouts)
        let result23 = machine.start(1, now: t0)
        #expect(result23 == .refused(cleanup: false))
    }
}
