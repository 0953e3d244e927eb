import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// The observer and `metrics` over the AsyncHTTPClient transport, on every path: collect, stream,
/// events and download, with and without limits (the two send paths of the transport).
@Suite struct ObservationTests {
    /// Remembers the events of every call.
    final class Recorder: CallObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var heads: [HeadReceived] = []
        private var attempts: [AttemptFinished] = []
        private var calls: [CallFinished] = []

        func headReceived(_ event: HeadReceived) { lock.withLock { heads.append(event) } }
        func attemptFinished(_ event: AttemptFinished) { lock.withLock { attempts.append(event) } }
        func callFinished(_ event: CallFinished) { lock.withLock { calls.append(event) } }

        var snapshot: (heads: [HeadReceived], attempts: [AttemptFinished], calls: [CallFinished]) {
            lock.withLock { (heads, attempts, calls) }
        }

        /// Waits (at most 5 s) for `count` finished calls: a streamed body ends after the caller
        /// returned.
        func waitForCalls(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while snapshot.calls.count < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    static let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })

    @Test(arguments: [nil, Duration.seconds(30)])
    func everyPathIsObserved(timeout: Duration?) async throws {
        let events = [ServerSentEvent(data: "one"), ServerSentEvent(data: "two")]
        let stream = try LoopbackResponse.eventStream(events)
        let server = try LoopbackServer.start(fallback: { request in
            request.path == "/events" ? stream : LoopbackResponse(body: Self.body)
        })
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = Recorder()
        try await withTransport { transport in
            let api = LoopbackAPI(
                server: server, transport: transport,
                options: ResourceOptions {
                    $0.observer = recorder
                    $0.timeout = timeout
                })
            let collected = try await api.target("/collect").makeExecutor().response()
            #expect(collected.value == Self.body)
            #expect(collected.metrics.attempts.first?.bytesReceived == Int64(Self.body.count))

            var streamed = 0
            for try await chunk in try await api.target("/stream").makeExecutor().stream() {
                streamed += chunk.count
            }
            #expect(streamed == Self.body.count)

            var received: [String] = []
            for try await event in try await api.target("/events").makeExecutor().events() {
                received.append(event.data)
                if received.count == 2 { break }
            }
            #expect(received == ["one", "two"])

            let download = try await api.target("/download").makeExecutor()
                .download(to: directory.appendingPathComponent("file.bin"))
            #expect(download.bytesWritten == Int64(Self.body.count))
            #expect(download.metrics.attempts.first?.bytesReceived == Int64(Self.body.count))
            #expect(download.metrics.attempts.first?.statusCode == 200)
        }
        try await recorder.waitForCalls(4)
        let (heads, attempts, calls) = recorder.snapshot
        #expect(heads.count == 4)
        #expect(heads.allSatisfy { $0.httpVersion == "1.1" && $0.statusCode == 200 })
        #expect(calls.count == 4)
        #expect(calls.allSatisfy { $0.attempts == 1 && $0.errorCode == nil && $0.statusCode == 200 })
        // Collect, stream and download read the whole body; the event stream was left early.
        let whole = attempts.filter { $0.bytesReceived == Int64(Self.body.count) }
        #expect(whole.count == 3, "\(attempts.map(\.bytesReceived))")
    }
}
