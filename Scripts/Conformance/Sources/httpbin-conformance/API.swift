import Foundation
import NetLayer

/// httpbin, as a NetLayer service over plain HTTP on loopback.
final class Httpbin: Resource, @unchecked Sendable {
    init(
        address: String, headers: [String: String] = [:], params: Params = [:],
        paramStyle: ParamStyle = .default
    ) {
        super.init(
            protocol: .http, domain: address, defaultHeaders: headers, defaultParams: params,
            options: ResourceOptions(paramStyle: paramStyle))
    }

    /// `/anything`, which echoes every kind of request.
    func anything(headers: [String: String] = [:], params: Params = [:]) -> Echo {
        Echo(resource: self, path: "/anything", headers: headers, params: params)
    }

    /// `/get`, `/post`, `/put`, `/patch`, `/delete`: each echoes only its own method.
    func endpoint(for method: HTTPMethod) -> Echo {
        Echo(resource: self, path: "/" + method.rawValue.lowercased())
    }

    /// Any path under the service, with its own tokens or `?query`.
    func at(_ path: String) -> Echo {
        Echo(resource: self, path: path)
    }
}

/// The raw capture server (byte-exact checks).
final class RawService: Resource, @unchecked Sendable {
    init(port: UInt16, headers: [String: String] = [:]) {
        super.init(protocol: .http, domain: "127.0.0.1:\(port)", defaultHeaders: headers)
    }

    func at(_ path: String, headers: [String: String] = [:]) -> Echo {
        Echo(resource: self, path: path, headers: headers)
    }
}

/// An echoing endpoint; one method per kind of call the checks make.
final class Echo: Target, @unchecked Sendable {
    func call(
        _ method: HTTPMethod, pathParts: [String: any ParamConvertible] = [:],
        headers: [String: String] = [:],
        params: Params = [:], body: Body? = nil, files: [String: FilePart] = [:],
        placement: ParamPlacement = .automatic
    ) -> Executor {
        makeExecutor(
            method: method, pathParts: pathParts, headers: headers, params: params, body: body, files: files,
            placement: placement)
    }
}
