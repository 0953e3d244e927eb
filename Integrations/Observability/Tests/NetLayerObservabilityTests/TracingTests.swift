import Foundation
import InMemoryTracing
import NetLayer
import NetLayerObservability
import NetLayerTesting
import Testing
import Tracing

/// Every scenario over real loopback HTTP: the span tree, every attribute and its value, the span
/// status, the `traceparent` the server received, and the metrics recorded.
@Suite("Traces and metrics of real calls")
struct TracingTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    static let userBody = Data(#"{"id":42,"name":"Ada"}"#.utf8)

    /// The attributes every attempt's span has.
    static func attemptAttributes(
        _ service: Service, method: String = "GET", path: String, template: String?, reason: String,
        resendCount: Int = 0, cause: String? = nil
    ) -> [String: SpanAttribute] {
        var attributes: [String: SpanAttribute] = [
            "http.request.method": .string(method),
            "server.address": .string("127.0.0.1"),
            "server.port": .int64(Int64(service.server.port)),
            "url.full": .string(service.url(path)),
            "netlayer.attempt.reason": .string(reason),
        ]
        if let template { attributes["url.template"] = .string(template) }
        if resendCount > 0 { attributes["http.request.resend_count"] = .int64(Int64(resendCount)) }
        if let cause { attributes["netlayer.attempt.cause"] = .string(cause) }
        return attributes
    }

    /// The attributes every call's span has.
    static func callAttributes(_ service: Service, path: String, template: String?, attempts: Int)
        -> [String: SpanAttribute]
    {
        var attributes: [String: SpanAttribute] = [
            "http.request.method": .string("GET"),
            "server.address": .string("127.0.0.1"),
            "server.port": .int64(Int64(service.server.port)),
            "url.full": .string(service.url(path)),
            "netlayer.call.attempts": .int64(Int64(attempts)),
        ]
        if let template { attributes["url.template"] = .string(template) }
        return attributes
    }

    /// Checks that the server received each span's trace context, in order.
    static func expectPropagated(_ requests: [RecordedRequest], _ spans: [FinishedInMemorySpan]) {
        #expect(requests.count == spans.count)
        for (request, span) in zip(requests, spans) {
            let traceparent = request.header("traceparent") ?? ""
            #expect(isValidTraceparent(traceparent), "\(traceparent)")
            #expect(traceparent == span.traceparent)
            #expect(request.header("tracestate") == W3CInMemoryTracer.traceState)
        }
    }

    @Test func aPlainCall() async throws {
        let service = try Service()
        service.server.route("/users/42") { _ in
            LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: Self.userBody)
        }
        let users = Target(resource: service.resource(), path: "/users/:id")

        let response = try await users.makeExecutor(pathParts: ["id": 42]).response(model: User.self)
        #expect(response.value == User(id: 42, name: "Ada"))

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        #expect(call.operationName == "GET /users/:id")
        #expect(call.status == nil)
        var expectedCall = Self.callAttributes(
            service, path: "/users/42", template: "/users/:id", attempts: 1)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)

        let attempt = attempts[0]
        #expect(attempt.operationName == "GET /users/:id")
        #expect(attempt.kind == .client)
        #expect(attempt.status == nil)
        var expected = Self.attemptAttributes(
            service, path: "/users/42", template: "/users/:id", reason: "first")
        expected["http.response.status_code"] = .int64(200)
        expected["http.response.body.size"] = .int64(Int64(Self.userBody.count))
        #expect(attempt.attributeMap == expected)
        Self.expectPropagated(service.server.requests, attempts)

        // Metrics: one attempt, measured as NetLayer measured it.
        let telemetry = service.telemetry
        let dimensions = service.getDimensions + [("http.response.status_code", "200")]
        let durations = telemetry.timerValues("http.client.request.duration", dimensions)
        #expect(durations.count == 1)
        let measured = try #require(response.metrics.attempts.first).duration
        #expect(durations.first.map { Duration.nanoseconds($0) } == measured)
        #expect(telemetry.recorderValues("http.client.request.body.size", dimensions) == [0])
        #expect(
            telemetry.recorderValues("http.client.response.body.size", dimensions) == [
                Double(Self.userBody.count)
            ])
        #expect(telemetry.meterValues("http.client.active_requests", service.getDimensions) == [1, 0])
        #expect(telemetry.metrics.counters(label: "netlayer.client.retries").isEmpty)
        let calls = telemetry.timerValues("netlayer.client.call.duration", dimensions)
        #expect(calls.count == 1)
        #expect((calls.first ?? 0) >= (durations.first ?? .max))
    }

    @Test func aRetryAfter503() async throws {
        let service = try Service()
        let count = LockedCount()
        service.server.route("/users/7") { _ in
            count.next() == 1
                ? LoopbackResponse(status: 503, body: Data("busy".utf8))
                : LoopbackResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: Self.userBody)
        }
        let resource = service.resource {
            $0.retryPolicy = .fixed(delay: .milliseconds(100), maximumAttempts: 3)
        }
        let users = Target(resource: resource, path: "/users/:id")

        let response = try await users.makeExecutor(pathParts: ["id": 7]).response()
        #expect(response.statusCode == 200)

        let (call, attempts) = try await service.telemetry.tree(attempts: 2)
        var expectedCall = Self.callAttributes(service, path: "/users/7", template: "/users/:id", attempts: 2)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)
        #expect(call.status == nil)

        var first = Self.attemptAttributes(service, path: "/users/7", template: "/users/:id", reason: "first")
        first["http.response.status_code"] = .int64(503)
        first["http.response.body.size"] = .int64(4)
        first["error.type"] = .string("503")
        #expect(attempts[0].attributeMap == first)
        #expect(attempts[0].status?.code == .error)
        #expect(attempts[0].operationName == "GET /users/:id")

        var second = Self.attemptAttributes(
            service, path: "/users/7", template: "/users/:id", reason: "retry", resendCount: 1, cause: "503")
        second["http.response.status_code"] = .int64(200)
        second["http.response.body.size"] = .int64(Int64(Self.userBody.count))
        #expect(attempts[1].attributeMap == second)
        #expect(attempts[1].status == nil)
        Self.expectPropagated(service.server.requests, attempts)
        #expect(attempts[0].spanID != attempts[1].spanID)

        let telemetry = service.telemetry
        let failed = service.getDimensions + [("http.response.status_code", "503"), ("error.type", "503")]
        let succeeded = service.getDimensions + [("http.response.status_code", "200")]
        #expect(telemetry.timerValues("http.client.request.duration", failed).count == 1)
        #expect(telemetry.timerValues("http.client.request.duration", succeeded).count == 1)
        #expect(telemetry.recorderValues("http.client.response.body.size", failed) == [4])
        #expect(
            telemetry.counterTotal(
                "netlayer.client.retries", service.getDimensions + [("netlayer.retry.kind", "retry")]) == 1)
        #expect(telemetry.meterValues("http.client.active_requests", service.getDimensions) == [1, 0, 1, 0])
        // The retry policy's delay is a wait before the second attempt, on the call's span and measured.
        let delay = try #require(call.events.first { $0.name == "netlayer.admission.wait" })
        #expect(delay.attributes.get("netlayer.admission.kind") == .string("retry_delay"))
        #expect(delay.attributes.get("netlayer.admission.attempt") == .int64(2))
        let waits = telemetry.timerValues(
            "netlayer.client.admission.wait.duration",
            [
                ("netlayer.admission.kind", "retry_delay"), ("server.address", "127.0.0.1"),
                ("server.port", String(service.server.port)),
            ])
        #expect(waits.count == 1)
        #expect((waits.first ?? 0) >= 100_000_000, "the fixed delay is 100 ms")
        let measured = response.metrics.attempts.map(\.duration)
        let recorded =
            telemetry.timerValues("http.client.request.duration", failed)
            + telemetry.timerValues("http.client.request.duration", succeeded)
        #expect(recorded.map { Duration.nanoseconds($0) } == measured)
    }

    @Test func aRedirectChain() async throws {
        let service = try Service()
        service.server.route("/users/1") { _ in
            LoopbackResponse(status: 302, headers: [("Location", "/old/1")])
        }
        service.server.route("/old/1") { _ in LoopbackResponse(status: 301, headers: [("Location", "/new/1")])
        }
        service.server.route("/new/1") { _ in
            LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: Self.userBody)
        }
        let users = Target(resource: service.resource(), path: "/users/:id")

        let response = try await users.makeExecutor(pathParts: ["id": 1]).response()
        #expect(response.statusCode == 200)

        let (call, attempts) = try await service.telemetry.tree(attempts: 3)
        var expectedCall = Self.callAttributes(service, path: "/users/1", template: "/users/:id", attempts: 3)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)

        var first = Self.attemptAttributes(service, path: "/users/1", template: "/users/:id", reason: "first")
        first["http.response.status_code"] = .int64(302)
        first["http.response.body.size"] = .int64(0)
        #expect(attempts[0].attributeMap == first)
        #expect(attempts[0].operationName == "GET /users/:id")

        // A hop goes elsewhere: the target's template does not describe it, so the name is the method.
        var second = Self.attemptAttributes(
            service, path: "/old/1", template: nil, reason: "redirect", resendCount: 1, cause: "302")
        second["http.response.status_code"] = .int64(301)
        second["http.response.body.size"] = .int64(0)
        #expect(attempts[1].attributeMap == second)
        #expect(attempts[1].operationName == "GET")

        var third = Self.attemptAttributes(
            service, path: "/new/1", template: nil, reason: "redirect", resendCount: 2, cause: "301")
        third["http.response.status_code"] = .int64(200)
        third["http.response.body.size"] = .int64(Int64(Self.userBody.count))
        #expect(attempts[2].attributeMap == third)
        #expect(attempts.allSatisfy { $0.status == nil }, "3xx is not an error")
        Self.expectPropagated(service.server.requests, attempts)

        let telemetry = service.telemetry
        for status in ["302", "301", "200"] {
            let dimensions = service.getDimensions + [("http.response.status_code", status)]
            #expect(telemetry.timerValues("http.client.request.duration", dimensions).count == 1, "\(status)")
        }
        #expect(
            telemetry.metrics.counters(label: "netlayer.client.retries").isEmpty, "a redirect is no retry")
    }

    @Test func aRefreshAfter401AndItsReplay() async throws {
        let service = try Service()
        service.server.route("/me") { request in
            request.header("Authorization") == "Bearer fresh-token-2"
                ? LoopbackResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: Self.userBody)
                : LoopbackResponse(status: 401, headers: [("WWW-Authenticate", "Bearer")])
        }
        let auth = Authentication.bearer(token: "stale-token-1") { _ in "fresh-token-2" }
        let me = Target(resource: service.resource { $0.authentication = auth }, path: "/me")

        let user = try await me.makeExecutor().execute(model: User.self)
        #expect(user.id == 42)

        let (call, attempts) = try await service.telemetry.tree(attempts: 2)
        var expectedCall = Self.callAttributes(service, path: "/me", template: "/me", attempts: 2)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)
        #expect(call.status == nil)

        var first = Self.attemptAttributes(service, path: "/me", template: "/me", reason: "first")
        first["http.response.status_code"] = .int64(401)
        first["http.response.body.size"] = .int64(0)
        first["error.type"] = .string("401")
        #expect(attempts[0].attributeMap == first)
        #expect(attempts[0].status?.code == .error, "4xx is an error on a client span")

        var second = Self.attemptAttributes(
            service, path: "/me", template: "/me", reason: "replay", resendCount: 1, cause: "401")
        second["http.response.status_code"] = .int64(200)
        second["http.response.body.size"] = .int64(Int64(Self.userBody.count))
        #expect(attempts[1].attributeMap == second)
        Self.expectPropagated(service.server.requests, attempts)

        let telemetry = service.telemetry
        #expect(
            telemetry.counterTotal(
                "netlayer.client.retries", service.getDimensions + [("netlayer.retry.kind", "replay")]) == 1)
        let rejected = service.getDimensions + [("http.response.status_code", "401"), ("error.type", "401")]
        #expect(telemetry.timerValues("http.client.request.duration", rejected).count == 1)
    }

    @Test func aClientErrorStatus() async throws {
        let service = try Service()
        service.server.route("/users/9") { _ in LoopbackResponse(status: 404, body: Data("gone".utf8)) }
        let users = Target(resource: service.resource(), path: "/users/:id")

        let error = await #expect(throws: NetLayerError.self) {
            _ = try await users.makeExecutor(pathParts: ["id": 9]).execute()
        }
        #expect(error?.code == .unacceptableStatus)

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        var expectedCall = Self.callAttributes(service, path: "/users/9", template: "/users/:id", attempts: 1)
        expectedCall["http.response.status_code"] = .int64(404)
        expectedCall["error.type"] = .string("404")
        #expect(call.attributeMap == expectedCall)
        #expect(call.status?.code == .error)
        var expected = Self.attemptAttributes(
            service, path: "/users/9", template: "/users/:id", reason: "first")
        expected["http.response.status_code"] = .int64(404)
        expected["http.response.body.size"] = .int64(4)
        expected["error.type"] = .string("404")
        #expect(attempts[0].attributeMap == expected)
        #expect(attempts[0].status?.code == .error)
        let dimensions =
            service.getDimensions + [("http.response.status_code", "404"), ("error.type", "404")]
        #expect(service.telemetry.timerValues("http.client.request.duration", dimensions).count == 1)
        #expect(service.telemetry.timerValues("netlayer.client.call.duration", dimensions).count == 1)
    }

    @Test func aDroppedConnection() async throws {
        let service = try Service()
        service.server.route("/drop") { _ in .drop() }
        let drop = Target(resource: service.resource(), path: "/drop")

        let error = await #expect(throws: NetLayerError.self) { _ = try await drop.makeExecutor().execute() }
        #expect(error?.code == .transport)

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        #expect(call.attributes.get("error.type") == .string("transport"))
        #expect(call.attributes.get("http.response.status_code") == nil)
        var expected = Self.attemptAttributes(service, path: "/drop", template: "/drop", reason: "first")
        expected["error.type"] = .string("transport")
        #expect(attempts[0].attributeMap == expected)
        #expect(attempts[0].status?.code == .error)
        Self.expectPropagated(service.server.requests, attempts)
    }

    @Test func aTimeout() async throws {
        let service = try Service()
        service.server.route("/slow") { _ in
            LoopbackResponse(status: 200, body: Data("late".utf8)).delayed(by: .seconds(3))
        }
        let slow = Target(resource: service.resource(), path: "/slow")

        let error = await #expect(throws: NetLayerError.self) {
            _ = try await slow.makeExecutor(resourceTimeout: .milliseconds(300)).execute()
        }
        #expect(error?.code == .timedOut)

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        var expectedCall = Self.callAttributes(service, path: "/slow", template: "/slow", attempts: 1)
        expectedCall["error.type"] = .string("timedOut")
        #expect(call.attributeMap == expectedCall)
        #expect(call.status?.code == .error)

        var expected = Self.attemptAttributes(service, path: "/slow", template: "/slow", reason: "first")
        expected["error.type"] = .string("timedOut")
        #expect(attempts[0].attributeMap == expected)
        #expect(attempts[0].status?.code == .error)
        Self.expectPropagated(service.server.requests, attempts)

        let telemetry = service.telemetry
        let dimensions = service.getDimensions + [("error.type", "timedOut")]
        #expect(telemetry.timerValues("http.client.request.duration", dimensions).count == 1)
        #expect(
            telemetry.recorderValues("http.client.response.body.size", dimensions).isEmpty,
            "no head, no body size")
        #expect(telemetry.meterValues("http.client.active_requests", service.getDimensions) == [1, 0])
        #expect(telemetry.timerValues("netlayer.client.call.duration", dimensions).count == 1)
    }

    @Test func aCancellation() async throws {
        let service = try Service()
        service.server.route("/hang") { _ in LoopbackResponse(status: 200).delayed(by: .seconds(5)) }
        let hang = Target(resource: service.resource(), path: "/hang")

        let task = Task { try await hang.makeExecutor().execute() }
        _ = await service.server.waitForRequests(count: 1, path: "/hang")
        task.cancel()
        let result = await task.result
        #expect(throws: NetLayerError.self) { try result.get() }

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        var expectedCall = Self.callAttributes(service, path: "/hang", template: "/hang", attempts: 1)
        expectedCall["error.type"] = .string("cancelled")
        #expect(call.attributeMap == expectedCall)
        #expect(call.status?.code == .error)

        var expected = Self.attemptAttributes(service, path: "/hang", template: "/hang", reason: "first")
        expected["error.type"] = .string("cancelled")
        #expect(attempts[0].attributeMap == expected)
        #expect(attempts[0].status?.code == .error)
        Self.expectPropagated(service.server.requests, attempts)
        #expect(
            service.telemetry.timerValues(
                "http.client.request.duration", service.getDimensions + [("error.type", "cancelled")]
            )
            .count == 1)
    }

    @Test func aStreamEndsItsSpansWithTheBodyNotTheHead() async throws {
        let service = try Service()
        let pieces = ["one\n", "two\n", "three\n"]
        let body = Data(pieces.joined().utf8)
        service.server.route("/feed") { _ in
            LoopbackResponse(status: 200, headers: [("Content-Type", "text/plain")], body: body)
                .dripped(.init(pieceLengths: pieces.map(\.utf8.count), interval: .milliseconds(150)))
        }
        let feed = Target(resource: service.resource(), path: "/feed")
        let tracer = service.telemetry.tracer

        var lines: [String] = []
        for try await line in try await feed.makeExecutor().lines() {
            if lines.isEmpty {
                // The head and a first line arrived: both spans are still open.
                #expect(tracer.finishedSpans.isEmpty)
                #expect(tracer.activeSpans.count == 2)
            }
            lines.append(line)
        }
        #expect(lines == ["one", "two", "three"])

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        var expected = Self.attemptAttributes(service, path: "/feed", template: "/feed", reason: "first")
        expected["http.response.status_code"] = .int64(200)
        expected["http.response.body.size"] = .int64(Int64(body.count))
        #expect(attempts[0].attributeMap == expected)
        #expect(attempts[0].elapsed >= .milliseconds(250), "the span covers the dripped body")
        var expectedCall = Self.callAttributes(service, path: "/feed", template: "/feed", attempts: 1)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)
        Self.expectPropagated(service.server.requests, attempts)
        let dimensions = service.getDimensions + [("http.response.status_code", "200")]
        #expect(
            service.telemetry.recorderValues("http.client.response.body.size", dimensions) == [
                Double(body.count)
            ])
    }

    @Test func aStreamStoppedEarlyIsNoError() async throws {
        let service = try Service()
        service.server.route("/feed") { _ in
            LoopbackResponse(status: 200, body: Data(repeating: 0x61, count: 64 << 10))
                .dripped(.init(pieceSize: 1024, interval: .milliseconds(20)))
        }
        let feed = Target(resource: service.resource(), path: "/feed")
        for try await _ in try await feed.makeExecutor().stream() { break }

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        #expect(call.status == nil)
        #expect(call.attributes.get("error.type") == nil)
        #expect(attempts[0].status == nil)
        #expect(attempts[0].attributes.get("error.type") == nil)
        #expect(attempts[0].attributes.get("http.response.status_code") == .int64(200))
    }

    @Test func aDownload() async throws {
        let service = try Service()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        service.server.route("/files/report.bin") { _ in
            LoopbackResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: body)
        }
        let files = Target(resource: service.resource(), path: "/files/:name")
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "obs-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: destination) }

        let download = try await files.makeExecutor(pathParts: ["name": "report.bin"]).download(
            to: destination)
        #expect(download.fileSize == Int64(body.count))

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        var expected = Self.attemptAttributes(
            service, path: "/files/report.bin", template: "/files/:name", reason: "first")
        expected["http.response.status_code"] = .int64(200)
        expected["http.response.body.size"] = .int64(Int64(body.count))
        #expect(attempts[0].attributeMap == expected)
        var expectedCall = Self.callAttributes(
            service, path: "/files/report.bin", template: "/files/:name", attempts: 1)
        expectedCall["http.response.status_code"] = .int64(200)
        #expect(call.attributeMap == expectedCall)
        Self.expectPropagated(service.server.requests, attempts)
        let dimensions = service.getDimensions + [("http.response.status_code", "200")]
        #expect(
            service.telemetry.recorderValues("http.client.response.body.size", dimensions) == [
                Double(body.count)
            ])
        let measured = try #require(download.metrics.attempts.first).duration
        #expect(
            service.telemetry.timerValues("http.client.request.duration", dimensions).map {
                Duration.nanoseconds($0)
            } == [measured])
    }

    @Test func theCallSpanIsAChildOfTheCallersSpan() async throws {
        let service = try Service()
        service.server.route("/ping") { _ in LoopbackResponse(status: 204) }
        let ping = Target(resource: service.resource(), path: "/ping")
        let tracer = service.telemetry.tracer

        let parent = tracer.startSpan("request", context: .topLevel, ofKind: .server)
        try await ServiceContext.withValue(parent.context) {
            _ = try await ping.makeExecutor().execute()
        }
        let (call, attempts) = try await service.telemetry.tree(attempts: 1, parentSpanID: parent.spanID)
        parent.end()
        #expect(call.traceID == parent.traceID)
        #expect(attempts[0].traceID == parent.traceID)
    }

    @Test func withoutCallSpansAttemptsHangFromTheCaller() async throws {
        let service = try Service()
        service.server.route("/ping") { _ in LoopbackResponse(status: 204) }
        let telemetry = service.telemetry
        let observer = TelemetryObserver(
            tracer: telemetry.tracer, metricsFactory: telemetry.metrics,
            configuration: .init(callSpans: false, pathTemplates: false))
        let resource = Resource(
            protocol: .http, domain: service.server.hostAndPort, options: ResourceOptions(observer: observer))
        let parent = telemetry.tracer.startSpan("job", context: .topLevel, ofKind: .internal)
        try await ServiceContext.withValue(parent.context) {
            _ = try await Target(resource: resource, path: "/ping").makeExecutor().execute()
        }
        let spans = try await telemetry.spans(count: 1)
        #expect(spans[0].kind == .client)
        #expect(spans[0].operationName == "GET")
        #expect(spans[0].parentSpanID == parent.spanID)
        #expect(spans[0].attributes.get("url.template") == nil)
    }

    @Test func withNothingBootstrappedACallIsNotObserved() async throws {
        let service = try Service()
        service.server.route("/ping") { _ in LoopbackResponse(status: 204) }
        let spy = StartSpy(inner: TelemetryObserver())  // the no-op tracer and the no-op metrics
        let resource = Resource(
            protocol: .http, domain: service.server.hostAndPort, options: ResourceOptions(observer: spy))
        _ = try await Target(resource: resource, path: "/ping").makeExecutor().execute()
        #expect(spy.results.withLock { $0 } == [false], "callStarted returned nil: nothing per call")
        #expect(service.server.requests.first?.header("traceparent") == nil)
    }

    @Test func anUnknownMethodIsOther() async throws {
        let service = try Service()
        service.server.route("/files/a") { _ in LoopbackResponse(status: 207) }
        let files = Target(resource: service.resource(), path: "/files/:name")
        _ = try await files.makeExecutor(method: HTTPMethod(rawValue: "PROPFIND"), pathParts: ["name": "a"])
            .execute()

        let (call, attempts) = try await service.telemetry.tree(attempts: 1)
        #expect(call.operationName == "HTTP /files/:name")
        #expect(attempts[0].operationName == "HTTP /files/:name")
        #expect(attempts[0].attributes.get("http.request.method") == .string("_OTHER"))
        #expect(attempts[0].attributes.get("http.request.method_original") == .string("PROPFIND"))
        #expect(call.attributes.get("http.request.method_original") == .string("PROPFIND"))
        let dimensions = service.telemetry.dimensionSets("http.client.request.duration")
        #expect(dimensions.map { $0["http.request.method"] } == ["_OTHER"], "the original method is no label")
    }

    @Test func theProtocolVersionWhenTheTransportTellsIt() async throws {
        let service = try Service()
        service.server.route("/v") { _ in LoopbackResponse(status: 200, body: Data("ok".utf8)) }
        let resource = service.resource(transport: VersionTellingTransport(version: "1.1"))
        _ = try await Target(resource: resource, path: "/v").makeExecutor().execute()

        let (_, attempts) = try await service.telemetry.tree(attempts: 1)
        #expect(attempts[0].attributes.get("network.protocol.version") == .string("1.1"))
        let dimensions =
            service.getDimensions + [
                ("http.response.status_code", "200"), ("network.protocol.version", "1.1"),
            ]
        #expect(service.telemetry.timerValues("http.client.request.duration", dimensions).count == 1)
    }

    @Test func signedQueryValuesAreRedactedInTheFullURL() async throws {
        let service = try Service()
        service.server.route("/blob") { _ in LoopbackResponse(status: 200) }
        let blob = Target(resource: service.resource(), path: "/blob")
        _ = try await blob.makeExecutor(params: ["sig": "c2lnbmF0dXJl", "color": "blue"]).execute()
        let (_, attempts) = try await service.telemetry.tree(attempts: 1)
        let full = attempts[0].attributes.get("url.full")
        #expect(full == .string(service.url("/blob?color=blue&sig=REDACTED")))

        _ = try await blob.makeExecutor(params: [
            "Signature": "s1gnature", "X-Goog-Signature": "g00g", "AWSAccessKeyId": "AKIA1234", "page": 2,
        ]).execute()
        let spans = service.telemetry.tracer.finishedSpans.filter { $0.kind == .client }
        let text = "\(spans.last?.attributes.get("url.full") ?? .string(""))"
        for key in ["Signature", "X-Goog-Signature", "AWSAccessKeyId"] {
            #expect(text.contains("\(key)=REDACTED"), "\(text)")
        }
        for value in ["s1gnature", "g00g", "AKIA1234"] { #expect(!text.contains(value), "\(text)") }
        #expect(text.contains("page=2"))
    }

    @Test func admissionWaitsAreMeasuredAndMarkedOnTheCallSpan() async throws {
        let service = try Service()
        service.server.route("/limited") { _ in LoopbackResponse(status: 204) }
        let telemetry = service.telemetry
        let resource = Resource(
            protocol: .http, domain: service.server.hostAndPort,
            rateLimits: [RateLimit(requests: 1, per: .milliseconds(300))],
            options: ResourceOptions(observer: telemetry.observer))
        let limited = Target(resource: resource, path: "/limited")
        _ = try await limited.makeExecutor().execute()
        telemetry.tracer.inMemory.clearFinishedSpans()
        _ = try await limited.makeExecutor().execute()

        let (call, _) = try await telemetry.tree(attempts: 1)
        let event = try #require(call.events.first { $0.name == "netlayer.admission.wait" })
        #expect(event.attributes.get("netlayer.admission.kind") == .string("rate_limit"))
        #expect(event.attributes.get("netlayer.admission.attempt") == .int64(1))
        let dimensions: [(String, String)] = [
            ("netlayer.admission.kind", "rate_limit"), ("server.address", "127.0.0.1"),
            ("server.port", String(service.server.port)),
        ]
        let waits = telemetry.timerValues("netlayer.client.admission.wait.duration", dimensions)
        #expect(waits.count == 1)
        #expect((waits.first ?? 0) >= 100_000_000)
    }
}

/// A transport on URLSession that reports the HTTP version, as AsyncHTTPClient's does.
struct VersionTellingTransport: Transport {
    let version: String
    let inner = URLSessionTransport()

    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
        var response = try await inner.send(request, context: context)
        response.head.httpVersion = version
        return response
    }
}

/// Records whether the observer it wraps took each call.
struct StartSpy: CallObserver {
    let inner: TelemetryObserver
    let results = LockedValue<[Bool]>([])

    func callStarted(_ event: CallStarted) -> (any CallObserver)? {
        let observer = inner.callStarted(event)
        results.withLock { $0.append(observer != nil) }
        return observer
    }
}

/// A value behind a lock, for tests.
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A counter a route handler can bump.
final class LockedCount: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
