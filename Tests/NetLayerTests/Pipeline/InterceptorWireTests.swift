import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7: the interceptor onion and validation at resource, target and call level.
    @Suite("Resilience: interceptors and validation on the wire", .timeLimit(.minutes(1)))
    struct InterceptorWireTests {
        static let server = TestServerPool.make()

        struct Refused: Error, Equatable { let reason: String }

        static func synthetic(_ json: String, for request: TransportRequest, status: Int = 200)
            -> TransportResponse
        {
            TransportResponse(
                head: ResponseHead(
                    statusCode: status,
                    headerFields: HeaderFields(received: [("Content-Type", "application/json")]),
                    url: request.url),
                body: ResponseBody(Data(json.utf8)))
        }

        @Test func interceptorsRunResourceThenTargetThenCallAndUnwindInReverse() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let trail = Trail()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(interceptors: [
                        TrailInterceptor(name: "resource1", trail: trail),
                        TrailInterceptor(name: "resource2", trail: trail),
                    ]))
                let target = TunedTarget(
                    resource: api, path: path, interceptors: [TrailInterceptor(name: "target", trail: trail)])
                try await target.makeExecutor()
                    .intercepted(by: TrailInterceptor(name: "call1", trail: trail))
                    .intercepted(by: TrailInterceptor(name: "call2", trail: trail))
                    .execute()
                #expect(
                    trail.all == [
                        "resource1>", "resource2>", "target>", "call1>", "call2>",
                        "<call2", "<call1", "<target", "<resource2", "<resource1",
                    ])
                #expect(
                    server.requests(path: path).first?.header("X-Trail")
                        == "resource1,resource2,target,call1,call2")
            }
        }

        @Test func anInterceptorCanAnswerWithoutCallingTheServer() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let cache = ClosureInterceptor { request, _, _ in
                    Self.synthetic(#"{"id":9,"title":"Cached"}"#, for: request)
                }
                let api = ResilientAPI(server: server)
                let response = try await api.target(path).makeExecutor().intercepted(by: cache).response(
                    model: Book.self)
                #expect(response.value == Book(id: 9, title: "Cached"))
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func anInterceptorCanReplaceTheServersResponse() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .text("down", status: 500) }
                let fallback = ClosureInterceptor { request, _, next in
                    let response = try await next(request)
                    guard response.head.statusCode >= 500 else { return response }
                    response.body.cancel()
                    return Self.synthetic(#"{"id":1,"title":"Stale but fine"}"#, for: request)
                }
                // One slot: the replaced response must have given it back for the second call.
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                for _ in 0..<2 {
                    let book = try await api.target(path).makeExecutor().intercepted(by: fallback).execute(
                        model: Book.self)
                    #expect(book.title == "Stale but fine")
                }
                #expect(server.requests(path: path).count == 2)
                #expect(api.limiter.inFlight == 0)
            }
        }

        @Test func anInterceptorCanCallNextTwiceAndEachCallIsAdmittedAndSent() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, responders: [{ _ in .text("first") }, { _ in .text("second") }])
                let twice = ClosureInterceptor { request, _, next in
                    let first = try await next(request)
                    first.body.cancel()
                    var again = request
                    try again.headerFields.setValue("2", for: "X-Again")
                    return try await next(again)
                }
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let text = try await api.target(path).makeExecutor().intercepted(by: twice).execute(
                    model: String.self)
                #expect(text == "second")
                let received = server.requests(path: path)
                #expect(received.map { $0.header("X-Again") ?? "-" } == ["-", "2"])
                #expect(api.limiter.inFlight == 0)
            }
        }

        @Test func anInterceptorsOwnErrorBecomesInterceptorFailedWithTheErrorUnderneath() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let before = ClosureInterceptor { _, _, _ in throw Refused(reason: "offline mode") }
                let api = ResilientAPI(server: server)
                let early = await failure {
                    try await api.target(path).makeExecutor().intercepted(by: before).execute()
                }
                #expect(early?.code == .interceptorFailed)
                #expect(early?.underlying as? Refused == Refused(reason: "offline mode"))
                #expect(early?.message.contains("offline mode") == true)
                #expect(server.requests(path: path).isEmpty)

                let after = ClosureInterceptor { request, _, next in
                    let response = try await next(request)
                    response.body.cancel()
                    throw Refused(reason: "signature mismatch")
                }
                let late = await failure {
                    try await api.target(path).makeExecutor().intercepted(by: after).execute()
                }
                #expect(late?.code == .interceptorFailed)
                #expect(late?.underlying as? Refused == Refused(reason: "signature mismatch"))
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func anInterceptorThatHangsEndsAtTheTotalDeadlineAndIsCancelled() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let cancelled = LockedValue(false)
                let slow = ClosureInterceptor { request, _, next in
                    do { try await Task.sleep(for: .seconds(20)) } catch {
                        cancelled.withLock { $0 = true }
                        throw error
                    }
                    return try await next(request)
                }
                let api = ResilientAPI(server: server)
                let start = ContinuousClock.now
                let error = await failure {
                    try await api.target(path).makeExecutor(resourceTimeout: .milliseconds(500))
                        .intercepted(by: slow).execute()
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .timedOut)
                #expect(error?.message.contains("total deadline") == true)
                #expect(elapsed < .seconds(5), "the call waited \(elapsed) for a hung interceptor")
                #expect(await eventually { cancelled.withLock { $0 } })
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func aNetLayerErrorThrownByAnInterceptorIsPassedOnAsItIs() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                // Setting a framing header is refused by the same checks as every header.
                let framing = ClosureInterceptor { request, _, next in
                    var request = request
                    try request.headerFields.setValue("0", for: "Content-Length")
                    return try await next(request)
                }
                let error = await failure {
                    try await ResilientAPI(server: server).target(path).makeExecutor().intercepted(
                        by: framing
                    ).execute()
                }
                #expect(error?.code == .invalidHeader)
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func interceptorsSeeEveryAttemptWithItsNumberAndTheTemplate() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(
                    path + "/42", [.text("no", status: 503), .text("no", status: 503), .text("ok")])
                let seen = LockedValue<[String]>([])
                let spy = ClosureInterceptor { request, context, next in
                    let response = try await next(request)
                    seen.withLock {
                        $0.append(
                            "\(context.attempt) \(context.pathTemplate) \(context.isIdempotent) \(response.head.statusCode)"
                        )
                    }
                    return response
                }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        interceptors: [spy], retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 3))
                )
                try await EchoTarget(resource: api, path: path + "/:id").makeExecutor(pathParts: ["id": 42])
                    .execute()
                #expect(
                    seen.withLock { $0 } == [
                        "1 \(path)/:id true 503", "2 \(path)/:id true 503", "3 \(path)/:id true 200",
                    ])
                seen.withLock { $0.removeAll() }
                server.script(path + "/7", [.text("no", status: 503)])
                _ = await failure {
                    try await EchoTarget(resource: api, path: path + "/:id")
                        .makeExecutor(method: .post, pathParts: ["id": 7]).execute()
                }
                #expect(seen.withLock { $0 } == ["1 \(path)/:id false 503"])
            }
        }

        @Test func validationOfTheCallWinsOverTheTargetsWhichWinsOverTheResources() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(validation: Validation(acceptableStatusCodes: [200, 404])))
                // The resource's: 404 is fine.
                let resourceLevel = try await EchoTarget(resource: api, path: "/status/404").makeExecutor()
                    .response()
                #expect(resourceLevel.statusCode == 404)
                // The target's: only 200.
                let strict = TunedTarget(
                    resource: api, path: "/status/404", validation: Validation(acceptableStatusCodes: [200]))
                let error = await failure { try await strict.makeExecutor().execute() }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 404)
                // The call's: anything.
                let callLevel = try await strict.makeExecutor().validate(.none).response()
                #expect(callLevel.statusCode == 404)
                let teapot = await failure {
                    try await EchoTarget(resource: api, path: "/status/418").makeExecutor().execute()
                }
                #expect(teapot?.statusCode == 418)
            }
        }

        @Test func acceptedContentTypesAreCheckedBeforeDecoding() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path + "/text") { _ in .text("<html>maintenance</html>") }
                server.route(path + "/problem") { _ in
                    TestResponse(
                        status: 200, headers: [("Content-Type", "application/problem+json; charset=utf-8")],
                        body: Data(#"{"id":3,"title":"P"}"#.utf8))
                }
                server.route(path + "/none") { _ in TestResponse(status: 204) }
                let json = Validation.successfulStatusCodes.acceptingContentTypes(["application/json"])
                let api = ResilientAPI(server: server, options: ResourceOptions(validation: json))
                let error = await failure {
                    try await api.target(path + "/text").makeExecutor().execute(model: Book.self)
                }
                #expect(error?.code == .unacceptableContentType && error?.statusCode == 200)
                #expect(error?.body == Data("<html>maintenance</html>".utf8))
                #expect(
                    error?.message.contains("text/plain") == true
                        && error?.message.contains("application/json") == true)
                #expect(
                    try await api.target(path + "/problem").makeExecutor().execute(model: Book.self).id == 3)
                #expect(
                    try await api.target(path + "/none").makeExecutor().execute(model: Empty.self) == Empty())
                // Per target and per call, with wildcards.
                let textTarget = TunedTarget(
                    resource: api, path: path + "/text",
                    validation: Validation(acceptableStatusCodes: 200..<300, contentTypes: ["text/*"]))
                #expect(
                    try await textTarget.makeExecutor().execute(model: String.self)
                        == "<html>maintenance</html>")
                let images = await failure {
                    try await textTarget.makeExecutor()
                        .validate(Validation.successfulStatusCodes.acceptingContentTypes(["image/*"]))
                        .execute()
                }
                #expect(images?.code == .unacceptableContentType)
            }
        }

        @Test func aStatusRejectionComesBeforeAContentTypeRejection() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        validation: .successfulStatusCodes.acceptingContentTypes(["application/json"])))
                let error = await failure {
                    try await EchoTarget(resource: api, path: "/status/503").makeExecutor().execute()
                }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 503)
            }
        }
    }
}
