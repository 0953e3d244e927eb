import Foundation
import NetLayer

/// The suite's own endpoints: `PUT /config/ID` tells the server how to answer a test's requests,
/// `GET /state/ID` returns what it received. These calls are the harness, not the client under
/// test: they go through a resource of their own that never has a cache.
struct SuiteServer: Sendable {
    private let address: ServerAddress
    private let resource: Resource

    /// A harness for the server at `address`.
    init(address: ServerAddress) {
        self.address = address
        resource = Resource(
            protocol: .http, domain: address.authority,
            options: ResourceOptions {
                $0.validation = .none
                $0.redirects = .doNotFollow
                $0.retryPolicy = .none
                $0.resourceTimeout = .seconds(10)
            })
    }

    /// Configures the server for one run of a test.
    /// - Throws: ``TestFailure`` of kind `Setup` unless the server answers 201.
    func configure(uuid: String, test: SuiteTest) async throws(TestFailure) {
        let configuration = JSONValue.array(test.requests.map { $0.configuration(for: test) })
        let body: Data
        do {
            body = try JSONEncoder().encode(configuration)
        } catch {
            throw TestFailure(
                kind: "Setup", message: "cannot run: the configuration does not encode: \(error)")
        }
        let response: Response<Data>
        do {
            response = try await Target(resource: resource, path: "")
                .makeExecutor(
                    url: try address.url("/config/\(uuid)"), method: .put,
                    body: .data(body, contentType: "application/json")
                ).response()
        } catch let failure as TestFailure {
            throw failure
        } catch {
            throw TestFailure(kind: "Setup", message: "PUT config failed: \(error)")
        }
        guard response.statusCode == 201 else {
            let text = String(decoding: response.data.prefix(200), as: UTF8.self)
            throw TestFailure(
                kind: "Setup", message: "PUT config resulted in \(response.statusCode) - \(text)")
        }
    }

    /// What the server received for a test, in arrival order; empty when it has no state for it.
    /// - Throws: ``TestFailure`` when the state cannot be read.
    func state(uuid: String) async throws(TestFailure) -> [ServerRequest] {
        let response: Response<Data>
        do {
            response = try await resource.follow(try address.url("/state/\(uuid)")).response()
        } catch let failure as TestFailure {
            throw failure
        } catch {
            throw TestFailure(kind: "Setup", message: "GET state failed: \(error)")
        }
        guard response.statusCode == 200 else { return [] }
        return try ServerRequest.list(from: response.data)
    }
}
