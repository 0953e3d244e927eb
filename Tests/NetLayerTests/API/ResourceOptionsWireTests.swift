import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// `ResourceOptions { $0.… = … }`: options set in any order, each one reaching the wire.
    @Suite("Resource options set in any order")
    struct ResourceOptionsWireTests {
        static let server = TestServerPool.make()

        @Test func optionsSetInAnyOrderAllApply() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.script(path, [.text("busy", status: 503), .json(#"{"id":1,"title":"Dune"}"#)])
            let lines = LineCollector()
            // An order the memberwise initializer refuses (it wants bodyParams before debug, debug
            // before log, retryPolicy before authentication).
            let api = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.authentication = .bearer(token: "pat-42")
                    $0.retryPolicy = .fixed(delay: .milliseconds(10), statusCodes: [503])
                    $0.log = lines.sink
                    $0.debug = true
                    $0.bodyParams = .json
                })
            let book = try await api.target(path).makeExecutor(method: .put, params: ["title": "Dune"])
                .execute(model: Book.self)
            #expect(book == Book(id: 1, title: "Dune"))
            let received = server.requests(path: path)
            #expect(received.count == 2)
            #expect(received.allSatisfy { $0.header("Content-Type") == "application/json" })
            #expect(received.allSatisfy { $0.bodyString == #"{"title":"Dune"}"# })
            #expect(received.allSatisfy { $0.header("Authorization") == "Bearer pat-42" })
            #expect(
                lines.lines.contains { $0.contains("PUT http://\(server.hostAndPort)\(path)") },
                "\(lines.lines)")
        }

        @Test func untouchedOptionsKeepTheirDefaults() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.script(path, [.text("busy", status: 503), .text("ok")])
            let api = TestAPI(server: server, options: ResourceOptions { $0.timeout = .seconds(30) })
            // Form params (bodyParams .form) and no retry (retryPolicy .none).
            let error = await failure {
                try await api.target(path).makeExecutor(method: .put, params: ["title": "Dune"]).execute()
            }
            #expect(error?.statusCode == 503 && error?.attempts == 1)
            let received = server.requests(path: path)
            #expect(received.count == 1)
            #expect(received.first?.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(received.first?.bodyString == "title=Dune")
        }
    }
}

@Suite("Resource options: the order-free initializer")
struct ResourceOptionsInitializerTests {
    struct Unreadable: Error {}

    @Test func anErrorThrownWhileConfiguringIsRethrown() {
        #expect(throws: Unreadable.self) {
            _ = try ResourceOptions { _ in throw Unreadable() }
        }
    }

    @Test func everyPropertyCanBeSetAndTheRestKeepTheirDefaults() {
        let options = ResourceOptions {
            $0.maximumResponseSize = nil
            $0.resourceTimeout = .seconds(5)
        }
        let defaults = ResourceOptions()
        #expect(options.maximumResponseSize == nil && options.resourceTimeout == .seconds(5))
        #expect(defaults.maximumResponseSize == ResourceOptions.defaultMaximumResponseSize)
        #expect(options.timeout == defaults.timeout && options.debug == defaults.debug)
        #expect(options.redirects.maximum == defaults.redirects.maximum)
        #expect(options.retryPolicy.maximumAttempts == 1 && options.authentication == nil)
    }
}
