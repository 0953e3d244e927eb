import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests {
    /// Issue 29, part 1: every call's events reach its observer in order, one attempt per request
    /// the server sees (retries, redirect hops, replays, reconnections and restarts included), and
    /// `Response.metrics`, `Download.metrics` and `NetLayerError.metrics` carry the same timeline.
    @Suite("Observation: events and metrics on the wire", .timeLimit(.minutes(1)))
    struct ObservationWireTests {
        static let server = TestServerPool.make()

        /// A resource observed by `recorder`; its default maximum response size, so collected
        /// bodies are read as they arrive (the path most calls take).
        static func api(
            _ server: TestServer, _ recorder: EventRecorder?, options: ResourceOptions = ResourceOptions()
        )
            -> ResilientAPI
        {
            var options = options
            options.observer = recorder
            return ResilientAPI(server: server, options: options)
        }

        @Test(arguments: [Int?.none, ResourceOptions.defaultMaximumResponseSize])
        func aPlainCallReportsOneAttemptAndItsMetrics(maximumResponseSize: Int?) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("hello") }
            let recorder = EventRecorder(server: server)
            let api = Self.api(
                server, recorder, options: ResourceOptions(maximumResponseSize: maximumResponseSize))
            let response = try await api.target(path).makeExecutor().response()
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 200", "end 1 completed 200 -",
                    "call end 200 - attempts 1",
                ])
            let finished = try #require(recorder.finished.first)
            #expect(finished.metrics == response.metrics)
            #expect(finished.duration == response.metrics.duration)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(response.metrics.attempts.count == 1)
            #expect(attempt.reason == .first && attempt.statusCode == 200 && attempt.end == .completed)
            #expect(attempt.bytesReceived == 5 && attempt.bytesSent == 0)
            let ttfb = try #require(attempt.timeToFirstByte)
            #expect(ttfb <= attempt.duration && attempt.start + attempt.duration <= response.metrics.duration)
            #expect(response.metrics.admissionWaits.isEmpty)
            let started = try #require(recorder.started.first)
            #expect(started.host == "127.0.0.1" && started.port == server.port && started.resendCount == 0)
            #expect(recorder.heads.first?.timeToFirstByte == ttfb)
            #expect(recorder.ended.first?.bytesReceived == 5)
        }

        @Test func withoutAnObserverTheMetricsAreThereAndACallCanTurnTheObserverOff() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("hello") }
            let quiet = try await Self.api(server, nil).target(path).makeExecutor().response()
            #expect(quiet.metrics.attempts.map(\.statusCode) == [200])
            #expect(quiet.metrics.attempts.first?.bytesReceived == 5)
            #expect(quiet.metrics.duration > .zero && quiet.metrics.duration <= quiet.duration)
            let recorder = EventRecorder(server: server)
            let off = try await Self.api(server, recorder).target(path).makeExecutor().observer(nil)
                .response()
            #expect(recorder.all.isEmpty)
            #expect(off.metrics.attempts.count == 1)
            // And a call can bring its own.
            let own = EventRecorder(server: server)
            _ = try await Self.api(server, recorder).target(path).makeExecutor().observer(own).response()
            #expect(recorder.all.isEmpty)
            #expect(own.lines.count == 5)
        }

        /// An observer that ignores a call without reading its URL (the tracing package over a
        /// no-op tracer and metrics) costs no redaction: the redactor, the printed URL and the host
        /// are built only when read. One that reads them gets the redacted URL.
        @Test func anObserverThatIgnoresTheCallCostsNoRedaction() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("hello") }
            let ignoring = IgnoringObserver(readsTheURL: false)
            var options = ResourceOptions()
            options.observer = ignoring
            let api = ResilientAPI(server: server, options: options)
            _ = try await api.target(path).makeExecutor(params: ["token": "s3cret"]).response()
            let unread = try #require(ignoring.events.withLock { $0 }.first)
            #expect(!unread.details.isBuilt)
            // The event holds the URL as sent until it is read, and still prints it redacted.
            var dumped = ""
            dump(unread, to: &dumped)
            #expect(!dumped.contains("s3cret") && dumped.contains("token=<redacted>"), "\(dumped)")

            let reading = IgnoringObserver(readsTheURL: true)
            let secret = try await api.target(path).makeExecutor(params: ["token": "s3cret"])
                .observer(reading).response()
            #expect(secret.statusCode == 200)
            let read = try #require(reading.events.withLock { $0 }.first)
            #expect(read.details.isBuilt)
            #expect(read.url.hasPrefix("http://127.0.0.1:\(server.port)/") && !read.url.contains("s3cret"))
            #expect(read.host == "127.0.0.1" && read.port == server.port)
        }

        /// Keeps every `CallStarted` and ignores the call (returns `nil`), reading its URL or not.
        final class IgnoringObserver: CallObserver {
            let readsTheURL: Bool
            let events = LockedValue<[CallStarted]>([])
            init(readsTheURL: Bool) { self.readsTheURL = readsTheURL }
            func callStarted(_ event: CallStarted) -> (any CallObserver)? {
                if readsTheURL { _ = event.url }
                events.withLock { $0.append(event) }
                return nil
            }
        }

        @Test func aRetryAfter503IsASecondAttemptAfterTheRetryDelay() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                hits.next() == 1
                    ? TestResponse(status: 503, headers: [("Retry-After", "0")], body: Data("busy".utf8))
                    : .text("ok")
            }
            let recorder = EventRecorder(server: server)
            let api = Self.api(
                server, recorder, options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(50))))
            let response = try await api.target(path).makeExecutor().response()
            // The collected call reads the 503's body while deciding (a body cut short is retried).
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 503", "end 1 completed 503 -",
                    "wait retryDelay before 2", "attempt 2 retry after 503 GET \(path)", "head 2 200",
                    "end 2 completed 200 -", "call end 200 - attempts 2",
                ])
            #expect(response.attempts == 2)
            #expect(response.metrics == recorder.finished.first?.metrics)
            let waits = response.metrics.admissionWaits
            #expect(waits.map(\.kind) == [.retryDelay] && waits.map(\.attempt) == [2])
            #expect(waits[0].duration >= RetryPolicy.minimumDelay)
            let attempts = response.metrics.attempts
            #expect(attempts.map(\.reason.kind) == [.first, .retry])
            #expect(attempts[1].start >= attempts[0].start + attempts[0].duration + waits[0].duration)
            #expect(recorder.started.map(\.resendCount) == [0, 1])
        }

        @Test func aServersPauseIsAnAdmissionWaitOfTheCallsThatFollow() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path + "/busy") { _ in
                TestResponse(status: 503, headers: [("Retry-After", "1")], body: Data("busy".utf8))
            }
            server.route(path + "/fine") { _ in .text("ok") }
            let recorder = EventRecorder(server: server)
            let api = Self.api(server, recorder)
            let error = await failure { try await api.target(path + "/busy").makeExecutor().execute() }
            #expect(error?.code == .unacceptableStatus)
            #expect(
                recorder.lines == [
                    "call GET \(path)/busy", "attempt 1 first GET \(path)/busy", "head 1 503",
                    "end 1 completed 503 -", "call end 503 unacceptableStatus attempts 1",
                ])
            #expect(error?.metrics == recorder.finished.first?.metrics)
            #expect(error?.metrics?.attempts.map(\.statusCode) == [503])
            recorder.reset()
            let response = try await api.target(path + "/fine").makeExecutor().response()
            #expect(
                recorder.lines == [
                    "call GET \(path)/fine", "wait serverPause before 1", "attempt 1 first GET \(path)/fine",
                    "head 1 200", "end 1 completed 200 -", "call end 200 - attempts 1",
                ])
            let wait = try #require(response.metrics.admissionWaits.first)
            #expect(wait.kind == .serverPause && wait.duration >= .milliseconds(800), "\(wait)")
            #expect(response.metrics.attempts[0].start >= wait.start + wait.duration)
            #expect(response.metrics.admissionTime == wait.duration)
        }

        @Test func aConcurrencySlotAndARateLimitAreAdmissionWaits() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("ok") }
            let recorder = EventRecorder(server: server)
            // One slot, held by another call until the gate opens.
            let slotted = ResilientAPI(
                server: server, maxConcurrentRequests: 1, options: ResourceOptions(observer: recorder))
            let gate = TestGate()
            defer { gate.open() }
            let held = await HeldSlot.hold(slotted, on: server, path: path, until: gate)
            let waiting = Task { try await slotted.target(path).makeExecutor().response() }
            #expect(await eventually { slotted.slotWaiters == 1 })
            try await Task.sleep(for: .milliseconds(100))
            gate.open()
            _ = try await held.value
            let response = try await waiting.value
            let slot = try #require(response.metrics.admissionWaits.first)
            #expect(response.metrics.admissionWaits.count == 1)
            #expect(
                slot.kind == .concurrencySlot && slot.attempt == 1 && slot.duration >= .milliseconds(80),
                "\(slot)")
            #expect(recorder.waits.map(\.kind).contains(.concurrencySlot))
            // Two calls through a limit of one per 300 ms: the second waits for the window.
            let limited = ResilientAPI(
                server: server, rateLimits: [RateLimit(requests: 1, per: .milliseconds(300))],
                options: ResourceOptions(observer: recorder))
            _ = try await limited.target(path).makeExecutor().response()
            recorder.reset()
            let second = try await limited.target(path).makeExecutor().response()
            let rate = try #require(second.metrics.admissionWaits.first)
            #expect(rate.kind == .rateLimit && rate.duration >= .milliseconds(200), "\(rate)")
            #expect(
                recorder.lines == [
                    "call GET \(path)", "wait rateLimit before 1", "attempt 1 first GET \(path)",
                    "head 1 200",
                    "end 1 completed 200 -", "call end 200 - attempts 1",
                ])
        }

        @Test func aLineTooLongEndsTheCallWithTheError() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("short\n" + String(repeating: "x", count: 100) + "\nrest\n") }
            let recorder = EventRecorder(server: server)
            let lines = try await Self.api(server, recorder).target(path).makeExecutor().lines(
                maximumLength: 10)
            var read: [String] = []
            let error = await failure { for try await line in lines { read.append(line) } }
            #expect(read == ["short"] && error?.code == .responseTooLarge)
            #expect(
                Array(recorder.lines.suffix(2)) == [
                    "end 1 failed 200 responseTooLarge", "call end 200 responseTooLarge attempts 1",
                ])
            #expect(error?.metrics == recorder.finished.first?.metrics)
        }

        /// Many calls at once, some cancelled, some timing out, some streamed and left early, some
        /// retried or redirected: for every call, its events start with `callStarted`, end with
        /// `callFinished`, and every attempt that started finished once, before the call did.
        /// (Calls cancelled or timed out are not redirected: Linux URLSession traps when a task is
        /// cancelled while its 3xx waits for the delegate's redirect decision.)
        @Test func everyCallsEventsPairUpUnderLoad() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            let streamed = TestResponse(status: 200, body: Data(repeating: 0x2A, count: 20000))
                .dripped(TestDrip(pieceSize: 2000, interval: .milliseconds(2)))
            server.route(path) { _ in
                switch hits.next() % 3 {
                case 0: TestResponse(status: 503, headers: [("Retry-After", "0")])
                case 1: TestResponse(status: 302, headers: [("Location", path + "/ok")])
                default: .text(String(repeating: "y", count: 5000))
                }
            }
            server.route(path + "/ok") { _ in streamed }
            server.route(path + "/plain") { _ in hits.next() % 2 == 0 ? TestResponse(status: 503) : streamed }
            let recorder = EventRecorder(server: server)
            let api = Self.api(
                server, recorder, options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5))))
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let interrupted = index % 3 == 0 || index % 5 == 0
                        let executor = api.target(interrupted ? path + "/plain" : path).makeExecutor(
                            timeout: index % 5 == 0 ? .milliseconds(5) : nil)
                        let call = Task {
                            if index % 2 == 0 {
                                _ = try await executor.execute()
                            } else {
                                for try await _ in try await executor.stream() { break }
                            }
                        }
                        if index % 3 == 0 {
                            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...10)))
                            call.cancel()
                        }
                        _ = await call.result
                    }
                }
            }
            #expect(await eventually { recorder.finished.count == 40 })
            var byCall: [CallID: [EventRecorder.Event]] = [:]
            for event in recorder.all { byCall[event.callID, default: []].append(event) }
            #expect(byCall.count == 40)
            for (id, events) in byCall {
                let lines = events.map(recorder.line)
                guard case .callStarted = events.first, case .callFinished(let finished) = events.last else {
                    Issue.record("call \(id): \(lines)")
                    continue
                }
                var open: Set<Int> = []
                var ended: Set<Int> = []
                for event in events {
                    switch event {
                    case .attemptStarted(let started):
                        #expect(open.insert(started.number).inserted, "call \(id): \(lines)")
                    case .headReceived(let head): #expect(open.contains(head.attempt), "call \(id): \(lines)")
                    case .attemptFinished(let end):
                        #expect(
                            open.remove(end.attempt) != nil && ended.insert(end.attempt).inserted,
                            "call \(id): \(lines)")
                    default: break
                    }
                }
                #expect(open.isEmpty && ended.count == finished.attempts, "call \(id): \(lines)")
                #expect(finished.metrics.attempts.allSatisfy { $0.end != nil }, "call \(id): \(lines)")
                #expect(events.filter { if case .callFinished = $0 { true } else { false } }.count == 1)
            }
        }

        @Test func aRedirectChainIsOneAttemptPerHop() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path + "/a") { _ in TestResponse(status: 302, headers: [("Location", path + "/b")]) }
            server.route(path + "/b") { _ in TestResponse(status: 307, headers: [("Location", path + "/c")]) }
            server.route(path + "/c") { _ in .text("here") }
            let recorder = EventRecorder(server: server)
            let response = try await Self.api(server, recorder).target(path + "/a").makeExecutor().response()
            #expect(
                recorder.lines == [
                    "call GET \(path)/a", "attempt 1 first GET \(path)/a", "head 1 302",
                    "end 1 setAside 302 -",
                    "attempt 2 redirect after 302 GET \(path)/b", "head 2 307", "end 2 setAside 307 -",
                    "attempt 3 redirect after 307 GET \(path)/c", "head 3 200", "end 3 completed 200 -",
                    "call end 200 - attempts 3",
                ])
            // Response.attempts counts attempts of the retry policy; hops are in the metrics.
            #expect(response.attempts == 1 && response.redirects.count == 2)
            #expect(response.metrics.attempts.map(\.statusCode) == [302, 307, 200])
            #expect(recorder.started.map(\.resendCount) == [0, 1, 2])
            #expect(response.metrics == recorder.finished.first?.metrics)
        }

        @Test func a401IsRefreshedAndTheReplayIsAnAttempt() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path, TestRoutes.acceptingBearer("new") { _ in .text("welcome") })
            let refresher = Refresher(next: "new")
            let auth = Authentication.bearer(token: "old-token") { try await refresher.refresh($0) }
            let recorder = EventRecorder(server: server)
            let api = Self.api(server, recorder, options: ResourceOptions(authentication: auth))
            let response = try await api.target(path).makeExecutor().response()
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 401", "end 1 setAside 401 -",
                    "attempt 2 replay after 401 GET \(path)", "head 2 200", "end 2 completed 200 -",
                    "call end 200 - attempts 2",
                ])
            #expect(response.attempts == 2)
            #expect(response.metrics == recorder.finished.first?.metrics)
            // Credentials never reach an observer.
            #expect(recorder.started.map { $0.headers["Authorization"] } == ["<redacted>", "<redacted>"])
        }

        @Test func aTimeoutEndsTheAttemptAndTheCallAsFailed() async throws {
            let server = try Self.server.get()
            let recorder = EventRecorder(server: server)
            let executor = Self.api(server, recorder).target("/delay/3000").makeExecutor(
                timeout: .milliseconds(300))
            let error = await failure { try await executor.execute() }
            #expect(error?.code == .timedOut)
            #expect(
                recorder.lines == [
                    "call GET /delay/3000", "attempt 1 first GET /delay/3000", "end 1 failed - timedOut",
                    "call end - timedOut attempts 1",
                ])
            let metrics = try #require(error?.metrics)
            #expect(metrics == recorder.finished.first?.metrics)
            #expect(
                metrics.attempts.map(\.end) == [.failed] && metrics.attempts.map(\.errorCode) == [.timedOut])
            #expect(metrics.attempts[0].timeToFirstByte == nil)
            #expect(metrics.duration >= .milliseconds(300))
        }

        @Test func aCancelledCallEndsItsAttemptAsCancelled() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let gate = TestGate()
            defer { gate.open() }
            server.routeHeld(path, by: gate)
            let recorder = EventRecorder(server: server)
            let api = Self.api(server, recorder)
            let call = Task { try await api.target(path).makeExecutor().execute() }
            #expect(await eventually { !server.requests(path: path).isEmpty })
            call.cancel()
            let error = await failure { try await call.value }
            #expect(error?.code == .cancelled)
            #expect(recorder.waitForCallEnd())
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "end 1 failed - cancelled",
                    "call end - cancelled attempts 1",
                ])
            #expect(error?.metrics == recorder.finished.first?.metrics)
        }

        @Test func aStreamsAttemptAndCallEndWithItsBodyNotAtItsHead() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(status: 200, body: Data(repeating: 0x2A, count: 3000))
                    .dripped(TestDrip(pieceSize: 1000, interval: .milliseconds(20)))
            }
            let recorder = EventRecorder(server: server)
            let stream = try await Self.api(server, recorder).target(path).makeExecutor().stream()
            #expect(recorder.lines == ["call GET \(path)", "attempt 1 first GET \(path)", "head 1 200"])
            var received = 0
            for try await chunk in stream { received += chunk.count }
            #expect(received == 3000)
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 200", "end 1 completed 200 -",
                    "call end 200 - attempts 1",
                ])
            #expect(recorder.ended.first?.bytesReceived == 3000)
            let finished = try #require(recorder.finished.first)
            #expect(finished.duration >= .milliseconds(40))
        }

        @Test func aStreamTheConsumerLeavesEndsAsStopped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = TestResponse(status: 200)
                var body = TestStreamedBody(length: 1 << 30) { range in
                    Data(repeating: 0x2A, count: range.count)
                }
                body.pieceSize = 1000
                body.pause = .milliseconds(10)
                response.streamedBody = body
                return response
            }
            let recorder = EventRecorder(server: server)
            let lines = try await Self.api(server, recorder).target(path).makeExecutor().stream()
            for try await _ in lines { break }
            #expect(recorder.waitForCallEnd())
            #expect(
                Array(recorder.lines.suffix(2)) == ["end 1 stopped 200 -", "call end 200 - attempts 1"])
            #expect(recorder.ended.first.map { $0.bytesReceived > 0 } == true)
        }

        @Test func anEventStreamsReconnectionsAreAttemptsOfOneCall() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                switch hits.next() {
                case 1: EventStreamWireTests.events("retry: 10\nid: a-1\ndata: one\n\n")
                case 2: EventStreamWireTests.events("data: two\n\n")
                default: TestResponse(status: 204)
                }
            }
            let recorder = EventRecorder(server: server)
            var data: [String] = []
            for try await event in try await Self.api(server, recorder).target(path).makeExecutor()
                .events(reconnection: .init(defaultDelay: .milliseconds(10)))
            {
                data.append(event.data)
            }
            #expect(data == ["one", "two"])
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 200", "end 1 completed 200 -",
                    "attempt 2 reconnection GET \(path)", "head 2 200", "end 2 completed 200 -",
                    "attempt 3 reconnection GET \(path)", "head 3 204", "end 3 completed 204 -",
                    "call end 204 - attempts 3",
                ])
            #expect(recorder.started.map { $0.headers["Last-Event-ID"] } == [nil, "a-1", "a-1"])
        }

        @Test func aDownloadEndsWhenItsFileIsInPlaceAndARestartIsAnAttempt() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            let full = Data((0..<100).map { UInt8($0) })
            server.route(path) { request in
                if request.header("Range") != nil {
                    return TestResponse(status: 416, headers: [("Content-Range", "bytes */100")])
                }
                return TestResponse(status: 200, headers: [("ETag", "\"v2\"")], body: full)
            }
            let recorder = EventRecorder(server: server)
            let api = Self.api(server, recorder)
            let destination = scratch.file("file.bin")
            let plain = try await api.target(path).makeExecutor().download(to: destination)
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 200", "end 1 completed 200 -",
                    "call end 200 - attempts 1",
                ])
            #expect(plain.metrics == recorder.finished.first?.metrics)
            #expect(plain.metrics.attempts.first?.bytesReceived == 100)
            recorder.reset()
            // A partial file the server refuses to continue: the call starts over, once.
            try Data(repeating: 9, count: 30).write(to: scratch.file(".file.bin.netlayer-partial"))
            let url = try api.target(path).makeExecutor().prepare().request.url.absoluteString
            let record = DownloadFiles.ResumePoint(url: url, validator: "\"v1\"", offset: 30)
            try JSONEncoder().encode(record).write(to: scratch.file(".file.bin.netlayer-partial.json"))
            let restarted = try await api.target(path).makeExecutor().download(
                to: destination, resumable: true)
            #expect(restarted.fileSize == 100)
            #expect(
                recorder.lines == [
                    "call GET \(path)", "attempt 1 first GET \(path)", "head 1 416", "end 1 setAside 416 -",
                    "attempt 2 restart after 416 GET \(path)", "head 2 200", "end 2 completed 200 -",
                    "call end 200 - attempts 2",
                ])
            #expect(recorder.started.map { $0.headers["Range"] } == ["bytes=30-", nil])
            #expect(restarted.metrics == recorder.finished.first?.metrics)
        }

        @Test func anObserversHeaderReachesTheServerOnEveryAttempt() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path + "/a") { _ in
                hits.next() == 1
                    ? TestResponse(status: 503, headers: [("Retry-After", "0")])
                    : TestResponse(status: 302, headers: [("Location", path + "/b")])
            }
            server.route(path + "/b", TestRoutes.acceptingBearer("new"))
            let refresher = Refresher(next: "new")
            let recorder = EventRecorder(server: server, inject: "traceparent")
            let api = Self.api(
                server, recorder,
                options: ResourceOptions(
                    retryPolicy: .fixed(delay: .milliseconds(10)),
                    authentication: .bearer(token: "old-token") { try await refresher.refresh($0) }))
            let response = try await api.target(path + "/a").makeExecutor().response()
            let id = try #require(recorder.finished.first?.callID.rawValue)
            // The retry, the redirect hop and the replay after the refresh: each its own value.
            let received = server.requests.filter { $0.path.hasPrefix(path) }.map { $0.header("traceparent") }
            #expect(received == ["\(id)-1", "\(id)-2", "\(id)-3", "\(id)-4", "\(id)-5"])
            #expect(
                recorder.started.map(\.reason.description) == [
                    "first", "retry after 503", "redirect after 302", "replay after 401",
                    "redirect after 302",
                ])
            #expect(response.sentRequest.headerFields["traceparent"] == "\(id)-5")
        }
    }
}

@Suite("Observation: an observer's headers")
struct AttemptHeadersTests {
    @Test func credentialsFramingAndControlCharactersAreRefused() throws {
        var headers = AttemptHeaders(redaction: .default)
        try headers.set("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", for: "traceparent")
        #expect(headers["TraceParent"] == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        for name in ["Authorization", "Cookie", "X-Api-Key", "Content-Length", "Host", "bad name"] {
            #expect(throws: NetLayerError.self) { try headers.set("x", for: name) }
        }
        #expect(throws: NetLayerError.self) { try headers.set("a\r\nb", for: "tracestate") }
        #expect(headers.fields.count == 1)
    }
}
