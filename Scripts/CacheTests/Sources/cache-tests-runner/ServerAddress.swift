import Foundation

/// Where the suite's server listens: an `http` URL on the loopback interface.
struct ServerAddress: Sendable {
    /// `host:port`, as a NetLayer `Resource` takes its domain.
    let authority: String
    /// `http://host:port`, without a trailing slash.
    let baseURL: String

    /// Reads `http://127.0.0.1:PORT` (or `localhost`, or `[::1]`).
    /// - Throws: ``DefinitionError`` for anything else: the runner sends traffic to loopback only.
    init(_ text: String) throws(DefinitionError) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let components = URLComponents(string: trimmed), components.scheme == "http",
            let host = components.host, let port = components.port,
            components.path.isEmpty, components.query == nil
        else {
            throw DefinitionError("the server's base URL must be http://127.0.0.1:PORT, not \(text)")
        }
        guard ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            throw DefinitionError("the server must be on the loopback interface, not \(host)")
        }
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        authority = "\(hostText):\(port)"
        baseURL = "http://\(authority)"
    }

    /// The URL of a path on the server (`/config/ID`, `/test/ID/file?query`).
    func url(_ pathAndQuery: String) throws(TestFailure) -> URL {
        guard let url = URL(string: baseURL + pathAndQuery) else {
            throw TestFailure(kind: "Setup", message: "cannot run: \(pathAndQuery) is not a valid URL path")
        }
        return url
    }
}
