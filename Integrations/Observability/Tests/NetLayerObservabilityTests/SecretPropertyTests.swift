import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import NetLayer
import NetLayerObservability
import NetLayerTesting
import Testing
import Tracing

/// DESIGN §17 for the companion package, as a property: a secret sent under a redacted name — an
/// `Authorization` header, an API-key header, a token in the query or the path, an
/// authenticator's bearer token or Basic password, a form password, a password in the user info of
/// a redirect's URL — never appears in a span's name, attribute or event, in a metric's label or
/// dimension, or in a log line or its metadata, whether or not the server echoes it. Seeded:
/// `NETLAYER_OBS_SECRET_CASES` (default 30), `NETLAYER_OBS_SECRET_SEED` (default random, printed).
@Suite("No secret in telemetry")
struct SecretPropertyTests {
    enum Placement: CaseIterable {
        case bearerHeader, apiKeyHeader, queryParam, pathPart, formPassword, authenticatorBearer
        case authenticatorBasic, redirectUserInfo
    }

    /// Printable ASCII a secret is drawn from (header values refuse control characters), with the
    /// characters URLs and forms encode.
    static let alphabet = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?[]%\"<>{}|^` ")

    @Test func secretsNeverReachSpansMetricsOrLogs() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["NETLAYER_OBS_SECRET_CASES"].flatMap { Int($0) } ?? 30
        let seed =
            environment["NETLAYER_OBS_SECRET_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("[obs-secrets] seed \(seed), \(count) cases (NETLAYER_OBS_SECRET_SEED=\(seed))")
        var random = SplitMix64(seed: seed)

        let server = try LoopbackServer.start(fallback: LoopbackResponse.echo)
        for index in 0..<count {
            let placement = Placement.allCases[index % Placement.allCases.count]
            let secret = Self.secret(&random)
            let refreshed = Self.secret(&random)
            let leaks = try await Self.run(placement, secret: secret, refreshed: refreshed, server: server)
            #expect(leaks.isEmpty, "case \(index) \(placement), seed \(seed): \(leaks)")
        }
    }

    /// The check can fail: with redaction turned off, the same calls leak into the log lines and
    /// into `url.full`, and the check finds them.
    @Test func theCheckFindsASecretWhenRedactionIsOff() async throws {
        let server = try LoopbackServer.start(fallback: LoopbackResponse.echo)
        var random = SplitMix64(seed: 29)
        let header = try await Self.run(
            .bearerHeader, secret: Self.secret(&random), refreshed: Self.secret(&random), server: server,
            redaction: .none)
        #expect(header.contains { $0.hasPrefix("log line") })
        let query = try await Self.run(
            .queryParam, secret: "plainsecretvalue", refreshed: Self.secret(&random), server: server,
            redaction: .none)
        #expect(query.contains { $0.hasPrefix("span attribute url.full") })
    }

    /// A secret of 12 to 24 characters that starts with a letter (so no path part is `.` or `..`).
    static func secret(_ random: inout SplitMix64) -> String {
        let length = 12 + Int(random.next() % 13)
        var text = String(alphabet[Int(random.next() % 52)])
        for _ in 1..<length { text.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
        return text
    }

    /// Runs one call with the secret placed, and returns every place it was found.
    static func run(
        _ placement: Placement, secret: String, refreshed: String, server: LoopbackServer,
        redaction: Redaction = .default
    ) async throws -> [String] {
        let telemetry = Telemetry()
        let log = CapturedLog()
        var options = ResourceOptions(
            debug: true, log: .logger(log.logger), redaction: redaction, observer: telemetry.observer)
        var defaultHeaders: [String: String] = [:]
        var path = "/echo"
        var method = HTTPMethod.get
        var headers: [String: String] = [:]
        var params: Params = [:]
        var pathParts: [String: any ParamConvertible] = [:]
        var needles = [secret, refreshed]
        switch placement {
        case .bearerHeader: defaultHeaders["Authorization"] = "Bearer \(secret)"
        case .apiKeyHeader: headers["X-API-Key"] = secret
        case .queryParam: params = ["access_token": secret, "page": 2]
        case .pathPart:
            path = "/tokens/:token"
            pathParts = ["token": secret]
        case .formPassword:
            method = .post
            params = ["user": "ada", "password": secret]
        case .authenticatorBearer:
            path = "/guarded"
            server.route("/guarded") { request in
                request.header("Authorization") == "Bearer \(refreshed)"
                    ? .echo(request) : LoopbackResponse(status: 401)
            }
            options.authentication = .bearer(token: secret) { _ in refreshed }
        case .authenticatorBasic:
            options.authentication = .basic(username: "ada", password: secret)
            needles.append(Data("ada:\(secret)".utf8).base64EncodedString())
        case .redirectUserInfo:
            path = "/jump"
            let password = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
            server.route("/jump") { _ in
                LoopbackResponse(
                    status: 302,
                    headers: [("Location", "http://ada:\(password)@127.0.0.1:\(server.port)/landed")])
            }
        }
        let resource = Resource(
            protocol: .http, domain: server.hostAndPort, defaultHeaders: defaultHeaders, options: options)
        let target = Target(resource: resource, path: path)
        _ = try? await target.makeExecutor(
            method: method, pathParts: pathParts, headers: headers, params: params
        )
        .execute()
        await telemetry.waitForCallSpans(1)

        var texts: [(String, String)] = []
        for span in telemetry.tracer.finishedSpans {
            texts.append(("span name", span.operationName))
            span.attributes.forEach { key, value in texts.append(("span attribute \(key)", "\(key)=\(value)"))
            }
            for event in span.events {
                texts.append(("span event", event.name))
                event.attributes.forEach { key, value in
                    texts.append(("event attribute \(key)", "\(key)=\(value)"))
                }
            }
            if let message = span.status?.message { texts.append(("span status", message)) }
        }
        let metrics = telemetry.metrics
        let labelled: [(String, [(String, String)])] =
            metrics.counters.map { ($0.label, $0.dimensions) }
            + metrics.timers.map { ($0.label, $0.dimensions) }
            + metrics.recorders.map { ($0.label, $0.dimensions) }
            + metrics.meters.map { ($0.label, $0.dimensions) }
        for (label, dimensions) in labelled {
            texts.append(("metric label", label))
            for (key, value) in dimensions { texts.append(("metric dimension \(label)", "\(key)=\(value)")) }
        }
        for entry in log.entries {
            texts.append(("log line", entry.message.description))
            for (key, value) in entry.metadata { texts.append(("log metadata", "\(key)=\(value)")) }
        }
        // A case that recorded nothing would pass for nothing.
        if telemetry.tracer.finishedSpans.isEmpty { return ["no span was recorded"] }
        if metrics.timers.isEmpty { return ["no metric was recorded"] }
        if log.entries.isEmpty { return ["no line was logged"] }
        let forms = needles.flatMap(Self.forms)
        return texts.compactMap { place, text in
            forms.contains { text.contains($0) } ? "\(place): \(text)" : nil
        }
    }

    /// The secret as sent and as URLs and forms encode it.
    static func forms(_ secret: String) -> [String] {
        var forms: Set<String> = [secret]
        for allowed in [CharacterSet.alphanumerics, .urlQueryAllowed, .urlPathAllowed, .urlUserAllowed] {
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) {
                forms.insert(encoded)
            }
        }
        forms.insert(secret.replacingOccurrences(of: " ", with: "+"))
        return Array(forms)
    }
}

/// A seeded generator, so a failing case reproduces.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
