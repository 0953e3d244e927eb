import Foundation
import NetLayer

extension TransportConformance {
    /// Redirects are NetLayer's: a transport returns every 3xx as it came, and NetLayer follows it
    /// by its own rules.
    static let redirectScenarios: [Entry] = [
        Entry(
            "redirect.returned-as-is",
            "301, 302, 303, 307 and 308 come back from the transport as they are (status and Location); the Location is never requested."
        ) { probe in
            for status in redirectStatuses {
                let (head, answer) = try await probe.fetchRedirect(status)
                try probe.expect(
                    head.statusCode == status, "status \(status) returned as is",
                    got: "status \(head.statusCode) (\(Probe.quoted(answer)))")
                try probe.expect(
                    head.headerFields["Location"] == "/target", "\(status) with Location: /target",
                    got: "Location \(head.headerFields.values(for: "Location"))")
            }
            let followed = probe.server.requests(path: "/target").count
            try probe.expect(
                followed == 0, "no request to the Location (the transport follows no redirect)",
                got: "\(followed) request(s) to /target")
        },
        Entry(
            "redirect.body-kept",
            "The body of a 301, 302, 303, 307 or 308 the transport returns reaches the caller."
        ) { probe in
            var lost: [String] = []
            for status in redirectStatuses {
                let (head, answer) = try await probe.fetchRedirect(status)
                if head.statusCode == status, answer != Data("moved".utf8) {
                    lost.append("\(status): \(Probe.quoted(answer))")
                }
            }
            try probe.expect(
                lost.isEmpty, "each redirect's body \"moved\"", got: lost.joined(separator: ", "))
        },
        Entry(
            "redirect.followed-by-netlayer",
            "Through a Resource, NetLayer follows 307 (method and body kept), 303 (GET, no body) and 301 to the final answer."
        ) { probe in
            probe.server.route("/start") { _ in
                LoopbackResponse(status: 307, headers: [("Location", "/kept")])
            }
            probe.server.route("/kept") { _ in LoopbackResponse(status: 303, headers: [("Location", "/seen")])
            }
            probe.server.route("/seen") { _ in
                LoopbackResponse(status: 301, headers: [("Location", "/final")])
            }
            probe.server.route("/final") { _ in .text("done") }
            let target = Target(resource: probe.resource(), path: "/start")
            let response: Response<Data>
            do {
                response = try await target.makeExecutor(
                    method: .post, body: .data(Data("payload".utf8), contentType: "text/plain")
                ).response()
            } catch {
                throw probe.failure(expected: "the final answer \"done\"", actual: Probe.describe(error))
            }
            try probe.expect(
                response.value == Data("done".utf8), "the final answer \"done\"",
                got: Probe.quoted(response.value))
            let hops = response.redirects.map(\.statusCode)
            try probe.expect(hops == [307, 303, 301], "redirects 307, 303, 301", got: "redirects \(hops)")
            let kept = probe.server.requests(path: "/kept")
            try probe.expect(
                kept.map(\.method) == ["POST"] && kept.first?.body == Data("payload".utf8),
                "one POST to /kept with the body \"payload\"",
                got: kept.map { "\($0.method) \(Probe.quoted($0.body))" }.description)
            let seen = probe.server.requests(path: "/seen") + probe.server.requests(path: "/final")
            try probe.expect(
                seen.map(\.method) == ["GET", "GET"] && seen.allSatisfy { $0.body.isEmpty },
                "one GET without a body to /seen, then to /final",
                got: seen.map { "\($0.method) \($0.path) \(Probe.quoted($0.body))" }.description)
        },
        Entry(
            "redirect.loop-too-many",
            "Through a Resource allowing 5 redirects, a redirect loop ends in NetLayerError .tooManyRedirects after 6 requests."
        ) { probe in
            probe.server.route("/loop") { _ in LoopbackResponse(status: 302, headers: [("Location", "/loop")])
            }
            let target = Target(resource: probe.resource(maximumRedirects: 5), path: "/loop")
            do {
                let data = try await target.makeExecutor().execute()
                throw probe.failure(expected: "NetLayerError .tooManyRedirects", actual: Probe.quoted(data))
            } catch let error as NetLayerError {
                try probe.expect(
                    error.code == .tooManyRedirects, "NetLayerError .tooManyRedirects",
                    got: Probe.describe(error))
            } catch let failure as ConformanceFailure {
                throw failure
            } catch {
                throw probe.failure(
                    expected: "NetLayerError .tooManyRedirects", actual: Probe.describe(error))
            }
            let count = probe.server.requests(path: "/loop").count
            try probe.expect(count == 6, "6 requests to /loop (the first and 5 redirects)", got: "\(count)")
        },
    ]

    /// The redirect statuses a transport must return as they are.
    static let redirectStatuses = [301, 302, 303, 307, 308]
}

extension Probe {
    /// Sends a GET (a POST with a body for 307 and 308) answered with `status`, Location: /target
    /// and the body "moved".
    func fetchRedirect(_ status: Int) async throws -> (head: ResponseHead, body: Data) {
        server.route("/target") { _ in .text("followed") }
        server.route("/moved-\(status)") { _ in
            LoopbackResponse(status: status, headers: [("Location", "/target")], body: Data("moved".utf8))
        }
        let method: HTTPMethod = status >= 307 ? .post : .get
        let body: RequestBody? = status >= 307 ? RequestBody(Data("payload".utf8)) : nil
        return try await fetch(
            request(method, "/moved-\(status)", body: body), expecting: "the \(status) response")
    }
}
