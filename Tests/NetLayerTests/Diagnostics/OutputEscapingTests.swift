import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whether `text` holds a character a terminal or log viewer acts on: a C0 control other than HTAB,
/// DEL, a C1 control, a bidi override or isolate, or a Unicode line or paragraph separator.
private func holdsRawControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { scalar in
        let value = scalar.value
        return (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x2028 || value == 0x2029
    }
}

/// Whether any line of a multi-line text (an error's `debugDescription`) holds a raw control.
private func anyLineHoldsRawControl(_ text: String) -> Bool {
    text.split(separator: "\n", omittingEmptySubsequences: false).contains { holdsRawControl(String($0)) }
}

/// Sets the terminal title, clears the screen, turns text red and backspaces over it.
private let terminalAttack = "a\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRED\u{08}\u{08}"
/// How ``terminalAttack`` reads once escaped.
private let terminalAttackEscaped = #"a\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRED\u{08}\u{08}"#

/// An error whose text echoes what an upstream said, as errors wrapping a server's reply do.
private struct EchoingError: Error, CustomStringConvertible {
    let description: String
}

/// An interceptor that fails with an ``EchoingError``.
private struct FailingInterceptor: Interceptor {
    let text: String
    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        throw EchoingError(description: text)
    }
}

extension WireTests {
    /// Control characters, bidi overrides and terminal escapes from outside (a server's headers and
    /// bodies, errors, caller text) are shown escaped in every text NetLayer produces (§17).
    @Suite("Output escaping")
    struct OutputEscapingTests {
        static let server = TestServerPool.make()

        /// A route answering with hostile header values next to an ordinary and a secret header.
        private static func hostileHeaders(_ server: TestServer, path: String, status: Int = 200) {
            server.route(path) { _ in
                TestResponse(
                    status: status,
                    headers: [
                        ("Content-Type", "text/html; x=\(terminalAttack)"), ("X-Evil", terminalAttack),
                        ("X-Plain", "v\t1"), ("X-Request-Id", "r-1"), ("X-Api-Key", "abc123-\u{1B}[0m"),
                    ],
                    body: Data("ok".utf8))
            }
        }

        @Test func debugLinesShowTerminalEscapesFromResponseHeadersEscaped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            Self.hostileHeaders(server, path: path)
            let lines = LineCollector()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            try await api.target(path).makeExecutor().execute()
            let printed = lines.lines
            #expect(!printed.contains(where: holdsRawControl), "\(printed.map(\.debugDescription))")
            let headers = try #require(
                printed.first { $0.hasPrefix("[NetLayer]   headers: ") && $0.contains("X-Evil") })
            #expect(headers.contains("X-Evil: \(terminalAttackEscaped)"), "\(headers)")
            #expect(headers.contains("Content-Type: text/html; x=\(terminalAttackEscaped)"), "\(headers)")
            // An ordinary header prints unchanged; a secret one is still redacted.
            #expect(headers.contains(" · X-Plain: v\t1 · X-Request-Id: r-1"), "\(headers)")
            #expect(headers.contains("X-Api-Key: <redacted>"), "\(headers)")
            #expect(!printed.joined().contains("abc123"))
        }

        @Test func errorTextsShowTerminalEscapesFromAContentTypeEscaped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            Self.hostileHeaders(server, path: path)
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor().events() {}
            }
            let failure = try #require(error)
            #expect(failure.code == .unacceptableContentType)
            for text in [failure.description, failure.message] {
                #expect(!holdsRawControl(text), "\(text.debugDescription)")
                #expect(text.contains("text/html; x=\(terminalAttackEscaped)"), "\(text)")
            }
            let debug = failure.debugDescription
            #expect(!anyLineHoldsRawControl(debug), "\(debug.debugDescription)")
            #expect(debug.contains("X-Evil: \(terminalAttackEscaped)"), "\(debug)")
            #expect(debug.contains("X-Request-Id: r-1"), "\(debug)")
            #expect(debug.contains("X-Api-Key: <redacted>") && !debug.contains("abc123"), "\(debug)")
        }

        @Test func bidiOverridesAndC1ControlsInABodyAreShownEscaped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            // U+202E makes `exe.png` read as `gnp.exe`; U+009B is an 8-bit CSI some terminals obey.
            let body = "file \u{202E}gnp.exe\u{202C} \u{2066}x\u{2069} \u{9B}31mred\u{85}next\u{2028}line"
            server.route(path) { _ in .text(body, status: 500) }
            let lines = LineCollector()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor().execute()
            }
            let failure = try #require(error)
            let escaped =
                #"file \u{202E}gnp.exe\u{202C} \u{2066}x\u{2069} \u{9B}31mred\u{85}next\u{2028}line"#
            let printed = lines.lines
            #expect(!printed.contains(where: holdsRawControl), "\(printed.map(\.debugDescription))")
            #expect(printed.contains("[NetLayer]   \(escaped)"), "\(printed)")
            #expect(!anyLineHoldsRawControl(failure.debugDescription), "\(failure.debugDescription)")
            #expect(failure.debugDescription.contains("body: \(escaped)"), "\(failure.debugDescription)")
            let preview = try #require(failure.bodyPreview())
            #expect(!holdsRawControl(preview) && preview == escaped, "\(preview.debugDescription)")
            // The raw bytes are still there for code that reads them.
            #expect(failure.body == Data(body.utf8))
        }

        @Test func decodingErrorsShowControlCharactersFromJSONKeysEscaped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"\u001b]0;pwned\u0007": "not a number"}"#) }
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await TestAPI(server: server).target(path).makeExecutor().execute(
                    model: [String: Int].self)
            }
            let failure = try #require(error)
            #expect(failure.code == .decodingFailed)
            #expect(!holdsRawControl(failure.description), "\(failure.description.debugDescription)")
            #expect(failure.description.contains(#"\u{1B}]0;pwned\u{07}"#), "\(failure.description)")
            #expect(!anyLineHoldsRawControl(failure.debugDescription), "\(failure.debugDescription)")
        }

        @Test func aSecretHoldingAControlCharacterIsStillMaskedOnceEscaped() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let secret = "sk-\u{1B}[8m-0123456789"
            let lines = LineCollector()
            let api = TestAPI(
                server: server,
                options: ResourceOptions(
                    debug: true, log: lines.sink,
                    interceptors: [
                        FailingInterceptor(text: "upstream said \u{1B}[2J your key \(secret) is wrong")
                    ]))
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor(params: ["api_key": secret]).execute()
            }
            let failure = try #require(error)
            for text in [failure.description, failure.message, failure.debugDescription] + lines.lines {
                #expect(!anyLineHoldsRawControl(text), "\(text.debugDescription)")
                #expect(!text.contains("0123456789"), "\(text)")
            }
            #expect(failure.description.contains(#"upstream said \u{1B}[2J your key <redacted> is wrong"#))
        }

        @Test func messagesExtendedBeforeRedactionStillMaskSecretsHoldingControls() throws {
            let secret = "sk-\u{1B}[8m-0123456789"
            let executor = TestAPI(server: try Self.server.get()).target("/x").makeExecutor(
                params: ["api_key": secret])
            let prepared = try executor.prepare()
            // As the executor does: a note is appended to the message, then the error is redacted.
            var error = NetLayerError.timedOut("the server echoed \u{1B}[2J\(secret)")
            error.message += " (GET /x)"
            let redacted = error.redacted(by: executor.redactor(for: prepared))
            for text in [redacted.description, redacted.message, redacted.debugDescription] {
                #expect(!holdsRawControl(text), "\(text.debugDescription)")
                #expect(!text.contains("0123456789"), "\(text)")
            }
            #expect(redacted.message == #"timed out: the server echoed \u{1B}[2J<redacted> (GET /x)"#)
        }

        #if os(macOS) || os(Linux)  // child processes (bash, curl)
            @Test func curlDescriptionEscapesControlCharactersAndStillSendsTheSameBody() async throws {
                let server = try Self.server.get()
                let path = uniquePath()
                let text = "hi \u{1B}[2J \u{202E}txt.exe\u{202C} it's\u{7F}\u{9B}\r\nend \\x41 \u{07}"
                let executor = TestAPI(server: server).target(path).makeExecutor(
                    method: .post, body: .data(Data(text.utf8), contentType: "text/plain"))
                try await executor.execute()
                let curl = try executor.curlDescription
                #expect(!holdsRawControl(curl), "\(curl.debugDescription)")
                #expect(curl.contains(#"\x1b[2J"#), "\(curl)")
                let status = try await runBash(curl + " --silent --show-error --output /dev/null")
                #expect(status == 0, "\(curl)")
                let requests = server.requests(path: path)
                try #require(requests.count == 2, "\(curl)")
                #expect(requests[1].body == Data(text.utf8), "\(curl)")
                #expect(requests[1].body == requests[0].body)
            }
        #endif
    }
}

extension WireTests.OutputEscapingTests {
    @Test(.tags(.hardening)) func serverTextCannotForgeLogLines() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        server.route(path) { _ in .text("ok\n[NetLayer] ← 200 OK · forged\r\nmore") }
        let lines = LineCollector()
        let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
        do {
            _ = try await api.target(path).makeExecutor().execute(model: Book.self)
            Issue.record("expected a decoding failure")
        } catch let error as NetLayerError {
            #expect(!error.description.contains("\n") && !error.description.contains("\r"), "\(error)")
            #expect(error.debugDescription.split(separator: "\n").allSatisfy { !$0.hasPrefix("[NetLayer]") })
        }
        #expect(lines.lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") }, "\(lines.lines)")
        #expect(lines.lines.contains { $0.contains(#"ok\n[NetLayer] ← 200 OK · forged\r\nmore"#) })
    }
}
