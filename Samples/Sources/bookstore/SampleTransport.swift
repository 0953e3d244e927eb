import NetLayer
import NetLayerAsyncHTTPClient

/// The main client's transport, chosen on the command line: URLSession (the default) or
/// AsyncHTTPClient (`--transport async-http-client`).
struct SampleTransport {
    /// `nil`: NetLayer's default, URLSession.
    let transport: AsyncHTTPClientTransport?

    init(arguments: [String]) {
        let choice = arguments.firstIndex(of: "--transport").flatMap {
            arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
        }
        transport = choice == "async-http-client" ? AsyncHTTPClientTransport() : nil
    }

    var name: String { transport == nil ? "URLSession" : "AsyncHTTPClient" }

    /// Shuts the AsyncHTTPClient transport's own client down; URLSession needs nothing.
    func shutdown() async {
        try? await transport?.shutdown()
    }
}
