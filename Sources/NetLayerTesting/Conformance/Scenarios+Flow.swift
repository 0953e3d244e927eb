import Foundation
import NetLayer

extension TransportConformance {
    /// How calls flow: cancellation, large and concurrent transfers, time limits.
    static let flowScenarios: [Entry] = [
        Entry(
            "cancel.before-head",
            "Cancelling the task while the server delays the head ends the call within 5 s with a cancellation error, and the connection is closed."
        ) { probe in
            probe.server.route("/late") { _ in LoopbackResponse.text("late").delayed(by: .seconds(15)) }
            let request = probe.request("/late")
            let call = Task {
                try await probe.transport.send(request, context: TransportContext()).body.collect()
            }
            let arrived = await probe.server.waitForRequests(count: 1, path: "/late", timeout: .seconds(5))
            guard !arrived.isEmpty else {
                call.cancel()
                throw probe.failure(
                    expected: "the request to reach the server", actual: "nothing arrived in 5 s")
            }
            try await probe.expectCancellation(of: call)
        },
        Entry(
            "cancel.before-body-end",
            "Cancelling the task while it reads a dripped body ends the call within 5 s with a cancellation error (not a short body), and the connection is closed."
        ) { probe in
            probe.server.route("/drip") { _ in
                LoopbackResponse.text(String(repeating: "x", count: 40))
                    .dripped(.init(pieceSize: 1, interval: .milliseconds(500)))
            }
            let (firstChunk, signal) = AsyncStream<Void>.makeStream()
            let request = probe.request("/drip")
            let call = Task {
                let response = try await probe.transport.send(
                    request, context: TransportContext(streamsResponse: true))
                var data = Data()
                for try await chunk in response.body {
                    data.append(chunk)
                    signal.yield()
                }
                return data
            }
            try await probe.within(.seconds(5), "the first byte of the body") {
                for await _ in firstChunk { break }
            }
            try await probe.expectCancellation(of: call)
        },
        Entry(
            "body.echo-1mib",
            "A 1 MiB upload arrives with Content-Length: 1048576 and the same 1 MiB comes back."
        ) { probe in
            probe.server.route("/echo") { request in
                LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: request.body)
            }
            let bytes = pattern(count: 1 << 20)
            let (head, answer) = try await probe.fetch(
                probe.request(.post, "/echo", body: RequestBody(bytes)), expecting: "the echo")
            try probe.expect(head.statusCode == 200, "status 200", got: "status \(head.statusCode)")
            let received = probe.server.requests(path: "/echo").first
            try probe.expect(
                received?.header("Content-Length") == "\(1 << 20)" && received?.body == bytes,
                "the server to receive 1048576 bytes with Content-Length: 1048576",
                got:
                    "\(received?.body.count ?? 0) bytes, Content-Length \(received?.header("Content-Length") ?? "none")"
            )
            try probe.expect(
                answer == bytes, "the same 1048576 bytes back",
                got: "\(answer.count) bytes\(answer.count == bytes.count ? " that differ" : "")")
        },
        Entry(
            "flow.concurrent-100",
            "100 calls at once all succeed, each with its own answer."
        ) { probe in
            probe.server.route("/item") { request in .text("item \(request.queryValue("n") ?? "?")") }
            let answers = try await probe.within(.seconds(25), "100 concurrent calls to end") {
                try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                    for index in 0..<100 {
                        group.addTask {
                            let (_, body) = try await probe.fetch(
                                probe.request("/item?n=\(index)"), expecting: "call \(index) to succeed")
                            return (index, body)
                        }
                    }
                    var answers: [Int: Data] = [:]
                    for try await (index, body) in group { answers[index] = body }
                    return answers
                }
            }
            let wrong = (0..<100).filter { answers[$0] != Data("item \($0)".utf8) }
            try probe.expect(
                wrong.isEmpty, "each call its own answer", got: "wrong answers for calls \(wrong)")
            let count = probe.server.requests(path: "/item").count
            try probe.expect(count == 100, "100 requests at the server", got: "\(count)")
        },
        Entry(
            "timeout.idle",
            "With an idle timeout of 0.3 s, a body that pauses 3 s after its first byte fails with NetLayerError .timedOut (within 5 s; ignoring the limit would take 27 s)."
        ) { probe in
            probe.server.route("/stall") { _ in
                LoopbackResponse.text("0123456789").dripped(.init(pieceSize: 1, interval: .seconds(3)))
            }
            let context = TransportContext(timeouts: Timeouts(idle: .milliseconds(300)))
            try await probe.expectTimeout(probe.request("/stall"), context: context, within: .seconds(5))
        },
        Entry(
            "timeout.total-covers-body",
            "With a total deadline of 1 s and no idle limit, a body that keeps dripping for 12 s fails with NetLayerError .timedOut within 6 s: the deadline covers the body."
        ) { probe in
            probe.server.route("/slow") { _ in
                LoopbackResponse.text(String(repeating: "x", count: 40))
                    .dripped(.init(pieceSize: 1, interval: .milliseconds(300)))
            }
            let context = TransportContext(timeouts: Timeouts(total: .seconds(1)))
            try await probe.expectTimeout(probe.request("/slow"), context: context, within: .seconds(6))
        },
    ]
}

extension Probe {
    /// Cancels `call`, which must end within 5 s with a cancellation error; then every connection
    /// of the server must close within 5 s.
    func expectCancellation(of call: Task<Data, any Error>) async throws {
        call.cancel()
        let result = try await within(.seconds(5), "the cancelled call to end") { await call.result }
        switch result {
        case .success(let data):
            throw failure(
                expected: "a cancellation error",
                actual: "success with \(data.count) bytes \(Self.quoted(data))")
        case .failure(let error):
            try expect(
                Self.isCancellation(error),
                "CancellationError, NetLayerError .cancelled or URLError.cancelled",
                got: Self.describe(error))
        }
        try await expectConnectionsClosed(within: .seconds(5), "the cancelled call's connection to close")
    }

    /// Sends `request` with `context`; the call must fail with NetLayerError `.timedOut` within
    /// `limit`.
    func expectTimeout(_ request: TransportRequest, context: TransportContext, within limit: Duration)
        async throws
    {
        let error = try await within(limit, "NetLayerError .timedOut") {
            try await fetchFails(request, context: context, expecting: "NetLayerError .timedOut")
        }
        try expect(Self.isTimeout(error), "NetLayerError .timedOut", got: Self.describe(error))
    }
}
