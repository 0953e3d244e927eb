import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The timer that enforces a delegate-driven transfer's timeouts, without a network.
@Suite("Transfer watchdog")
struct TaskExchangeWatchdogTests {
    private func exchange(_ session: URLSession) -> TaskExchange {
        // Never resumed: the task's state shows whether the watchdog cancelled it.
        let task = session.dataTask(with: URL(fileURLWithPath: "/dev/null"))
        return TaskExchange(
            task: task, progress: nil, uploadLength: nil, bufferLimit: 1 << 16,
            spillDirectory: FileManager.default.temporaryDirectory, cleanup: nil)
    }

    @Test func aWatchdogStartedAfterTheTransferEndedSetsNoTimerAndDoesNotCrash() async throws {
        // A transfer can fail before its watchdog is started (a fast failure). The timer made for
        // it was released without ever being activated, which crashed the process (libdispatch:
        // "release of an inactive object"), as the fuzz run in CI found.
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let exchange = exchange(session)
        exchange.complete(error: URLError(.cannotConnectToHost))
        exchange.startWatchdog(Timeouts(idle: .milliseconds(50), total: .milliseconds(80)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(exchange.task.state == .suspended, "the watchdog of an ended transfer cancelled its task")
    }

    @Test func aWatchdogCancelsAStalledTaskAtItsIdleTimeout() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let exchange = exchange(session)
        let start = ContinuousClock.now
        exchange.startWatchdog(Timeouts(idle: .milliseconds(100)))
        // The upper bound only says that the timeout fired at all, not late by minutes: the time seen
        // here includes this task's own wake-ups and the global queue the cancel goes through, and a
        // thread-sanitized CI run on a loaded machine saw 2.19 s (the bound used to be 2 s).
        while exchange.task.state == .suspended, ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(exchange.task.state != .suspended)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
