// Exit tests and child processes do not exist on iOS, tvOS, watchOS and visionOS.
#if os(macOS) || os(Linux)
    import Foundation
    import NetLayer
    import NetLayerTesting
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension WireTests {
        /// Linux URLSession (FoundationNetworking) stops the whole process with
        /// `fatalError("Transfer completed, but there's no response.")` on some responses a server
        /// chooses (swift-corelibs-foundation #5285, fixed upstream after Swift 6.3.1); NetLayer sits
        /// above it and cannot prevent it (Docs/Security.md, "What Linux URLSession does that NetLayer
        /// cannot fix"). Each case runs in a child process and the test records what the platform
        /// did: stopped by this known fault (Linux today), or a clean outcome — a toolchain that
        /// fixes it shows in the log, and the docs should then be updated. Any other ending (a hang,
        /// another crash, a wrong body) fails. Apple's URLSession must give the clean outcome.
        @Suite("Platform faults: responses Linux URLSession stops the process on", .tags(.hardening))
        struct TransferWithoutResponseCrashTests {
            /// A chunked body whose last chunk carries a trailer field: the body is `ok`.
            @Test func aChunkedBodyWithATrailerField() async {
                let result = await #expect(
                    processExitsWith: .failure,
                    observing: [\.exitStatus, \.standardOutputContent, \.standardErrorContent]
                ) {
                    await PlatformFaultChild.call(
                        wire: PlatformFaultChild.trailerWire, expecting: .body("ok"), timeout: nil)
                }
                PlatformFaultChild.record(result, expecting: .body("ok"))
            }

            /// The same through the delegate-driven send path (a call with a timeout).
            @Test func aChunkedBodyWithATrailerFieldWithATimeout() async {
                let result = await #expect(
                    processExitsWith: .failure,
                    observing: [\.exitStatus, \.standardOutputContent, \.standardErrorContent]
                ) {
                    await PlatformFaultChild.call(
                        wire: PlatformFaultChild.trailerWire, expecting: .body("ok"), timeout: .seconds(10))
                }
                PlatformFaultChild.record(result, expecting: .body("ok"))
            }

            /// A head cut in the middle, then the connection closed: a typed error is the clean outcome.
            @Test func aHeadCutInTheMiddle() async {
                let result = await #expect(
                    processExitsWith: .failure,
                    observing: [\.exitStatus, \.standardOutputContent, \.standardErrorContent]
                ) {
                    await PlatformFaultChild.call(
                        wire: PlatformFaultChild.cutHeadWire, expecting: .typedError, timeout: nil)
                }
                PlatformFaultChild.record(result, expecting: .typedError)
            }

            /// The same through the delegate-driven send path (a call with a timeout).
            @Test func aHeadCutInTheMiddleWithATimeout() async {
                let result = await #expect(
                    processExitsWith: .failure,
                    observing: [\.exitStatus, \.standardOutputContent, \.standardErrorContent]
                ) {
                    await PlatformFaultChild.call(
                        wire: PlatformFaultChild.cutHeadWire, expecting: .typedError, timeout: .seconds(10))
                }
                PlatformFaultChild.record(result, expecting: .typedError)
            }
        }
    }

    /// One NetLayer call against a hostile server, run in a child process, and how its ending is read.
    ///
    /// An exit test expects one exit condition; `.failure` is any exit but 0, a signal included, so the
    /// child reports its clean outcome with ``cleanExit`` (not 0) and the parent tells the endings apart.
    enum PlatformFaultChild {
        /// What a correct client makes of the wire.
        enum Clean: Equatable {
            case body(String)
            case typedError
        }

        /// The child got the clean outcome it expected.
        static let cleanExit: CInt = 42
        /// The child got a response or error other than the clean one (printed to its output).
        static let wrongOutcomeExit: CInt = 43
        /// The call neither returned nor stopped the process within 30 seconds.
        static let hungExit: CInt = 44
        /// The child could not start its server.
        static let serverExit: CInt = 45
        /// What Foundation prints before it stops the process.
        static let faultMessage = "Transfer completed, but there's no response."

        /// A chunked body `ok` whose last chunk carries the trailer field `X-Trailer: 1`.
        static let trailerWire: [LoopbackResponse.RawPiece] = [
            .init("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"),
            .init("Connection: close\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: 1\r\n\r\n"),
        ]

        /// A head cut after part of a field name; the server then closes the connection.
        static let cutHeadWire: [LoopbackResponse.RawPiece] = [
            .init("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Len")
        ]

        /// Runs in the child: starts a server on 127.0.0.1 that sends `wire`, makes one call and ends
        /// the process with an exit code saying how it went.
        static func call(wire: [LoopbackResponse.RawPiece], expecting clean: Clean, timeout: Duration?) async
            -> Never
        {
            DispatchQueue.global().asyncAfter(deadline: .now() + 30) { exit(hungExit) }
            guard let server = try? TestServer.start() else { exit(serverExit) }
            server.route("/fault") { _ in .raw(wire) }
            let api = TestAPI(server: server, options: ResourceOptions(timeout: timeout))
            let outcome: Clean
            do {
                let data = try await api.target("/fault").makeExecutor().execute()
                outcome = .body(String(decoding: data, as: UTF8.self))
                print(
                    "child: a response with body \(String(reflecting: String(decoding: data, as: UTF8.self)))"
                )
            } catch let error as NetLayerError {
                outcome = .typedError
                print("child: NetLayerError.\(error.code)")
            } catch {
                print("child: an error that is not a NetLayerError: \(error)")
                exit(wrongOutcomeExit)
            }
            exit(outcome == clean ? cleanExit : wrongOutcomeExit)
        }

        /// Checks how the child ended and prints the platform's outcome for the CI log.
        static func record(
            _ result: ExitTest.Result?, expecting clean: Clean,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard let result else { return }  // the exit test itself failed and was recorded
            let output = String(decoding: result.standardOutputContent, as: UTF8.self)
            let errors = String(decoding: result.standardErrorContent, as: UTF8.self)
            let crashed: Bool
            switch result.exitStatus {
            case .exitCode(cleanExit):
                crashed = false
            case .signal(let signal)
            where [SIGILL, SIGTRAP].contains(signal) && errors.contains(faultMessage):
                crashed = true
            default:
                let tail = String(errors.suffix(2_000))
                Issue.record(
                    "the child ended with \(result.exitStatus), neither \(clean) nor the known fault; output: \(output) errors: \(tail)",
                    sourceLocation: sourceLocation)
                return
            }
            #if os(Linux)
                print(
                    crashed
                        ? "platform outcome: crashed (swift-corelibs-foundation #5285): \(result.exitStatus)"
                        : "platform outcome: fixed — update Docs/Security.md: \(output)")
            #else
                #expect(!crashed, "Apple's URLSession stopped the process", sourceLocation: sourceLocation)
            #endif
        }
    }
#endif
