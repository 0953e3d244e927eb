import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    // In the serialized wire suite: a caller resumed at its deadline needs a thread of the
    // cooperative pool, which BusyPoolTimeoutTests blocks on purpose for up to 4 s.
    /// The timer that enforces a delegate-driven transfer's timeouts, without a network.
    @Suite("Transfer watchdog", .timeLimit(.minutes(1)))
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

        // MARK: Deadlines and cancellation do not wait for URLSession

        /// A task on a session without NetLayer's delegate: URLSession never tells the exchange
        /// anything, as when its completion queue is held for seconds by other work (Linux runs every
        /// session's completions and the shared cookie storage's writes on one serial queue; a 2 s
        /// deadline reached its caller at 12.4 s and 27.1 s). Only the watchdog can end the call.
        final class UnheardTransfer: Sendable {
            let server: TestServer
            let session: URLSession
            let exchange: TaskExchange

            init() throws {
                server = try TestServer.start()
                session = URLSession(configuration: .ephemeral)
                let path = "/silent-\(UUID().uuidString.prefix(8))"
                server.route(path) { _ in LoopbackResponse.text("late").delayed(by: .seconds(3)) }
                exchange = TaskExchange(
                    task: session.dataTask(with: server.url(path)), progress: nil, uploadLength: nil,
                    bufferLimit: 1 << 16, spillDirectory: FileManager.default.temporaryDirectory, cleanup: nil
                )
            }

            func close() {
                session.invalidateAndCancel()
                server.stop()
            }
        }

        /// Waits for the head the way the transport does.
        private func head(of exchange: TaskExchange, timeouts: Timeouts) async throws -> TransportResponse {
            try await withCheckedThrowingContinuation { continuation in
                guard exchange.start(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                exchange.startWatchdog(timeouts)
            }
        }

        @Test func theDeadlineReachesACallerWaitingForTheHeadWithoutURLSession() async throws {
            let transfer = try UnheardTransfer()
            defer { transfer.close() }
            let exchange = transfer.exchange
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await withDeadline(.seconds(10)) {
                    _ = try await self.head(of: exchange, timeouts: Timeouts(total: .milliseconds(300)))
                }
            }
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(3))
        }

        @Test func theDeadlineReachesABodysReaderWithoutURLSession() async throws {
            let transfer = try UnheardTransfer()
            defer { transfer.close() }
            let (server, exchange) = (transfer.server, transfer.exchange)
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await withDeadline(.seconds(10)) {
                    async let response = self.head(
                        of: exchange, timeouts: Timeouts(total: .milliseconds(400)))
                    try await Task.sleep(for: .milliseconds(50))
                    let head = try #require(
                        HTTPURLResponse(
                            url: server.url("/"), statusCode: 200, httpVersion: "HTTP/1.1",
                            headerFields: ["Content-Length": "100"]))
                    exchange.receivedHead(head)
                    exchange.receivedBody(Data("first".utf8))
                    var received = Data()
                    for try await chunk in try await response.body { received.append(chunk) }
                }
            }
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(3))
        }

        @Test func aCancelledCallerWaitingForTheHeadIsReleasedWithoutURLSession() async throws {
            let transfer = try UnheardTransfer()
            defer { transfer.close() }
            let exchange = transfer.exchange
            let call = Task {
                try await withTaskCancellationHandler {
                    _ = try await self.head(of: exchange, timeouts: Timeouts(total: .seconds(30)))
                } onCancel: {
                    exchange.cancel()
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            let start = ContinuousClock.now
            call.cancel()
            let result = try await withDeadline(.seconds(10)) { await call.result }
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }
}
