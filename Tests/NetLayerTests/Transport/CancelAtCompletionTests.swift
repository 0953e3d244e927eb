import Dispatch
import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests {
    /// A call cancelled just as its response completes. Linux URLSession's `data(for:)` cancels its
    /// task from inside Swift's task-cancellation handler, which holds the task's status lock, and
    /// waits there for the session's work queue; the work queue, completing the same transfer at
    /// that moment, resumes the task and waits for that lock: both wait forever, the session's
    /// queue with them, and with them whatever cooperative threads call into that session next.
    /// NetLayer's direct path (no limits, nothing streamed) no longer uses `data(for:)` and makes
    /// URLSession's `cancel()` from a thread of its own.
    @Suite("Cancelled at completion")
    struct CancelAtCompletionTests {
        @Test func cancellingCallsAsTheyCompleteNeverDeadlocks() async throws {
            let server = try LoopbackServer.start(fallback: { _ in LoopbackResponse(body: Data("ok".utf8)) })
            defer { server.stop() }
            let transport = URLSessionTransport()
            let finished = EndedCalls()
            // A watchdog off Swift's cooperative pool: a deadlock blocks the pool's threads, so a
            // check made with Task.sleep would never run.
            let stuck = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                if stuck.wait(timeout: .now() + 90) == .timedOut {
                    FileHandle.standardError.write(
                        Data(
                            "CancelAtCompletionTests: \(finished.value) of 400 calls ended in 90 s: deadlocked\n"
                                .utf8))
                    exit(3)
                }
            }
            let request = TransportRequest(method: .get, url: server.url("/ok"))
            for round in 0..<40 {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<10 {
                        let call = Task {
                            _ = try? await transport.send(request, context: TransportContext())
                        }
                        group.addTask {
                            // Cancel around the moment the response arrives (loopback: well under
                            // a millisecond to a few).
                            let micros = (round * 37 + index * 53) % 1500
                            try? await Task.sleep(for: .microseconds(micros))
                            call.cancel()
                            _ = await call.result
                            finished.add()
                        }
                    }
                }
            }
            stuck.signal()
            #expect(finished.value == 400)
        }
    }

    final class EndedCalls: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
