import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import X509

/// A request the TLS test server received.
struct ReceivedTLSRequest: Sendable, Equatable {
    let method: String
    let uri: String
    /// `1.1` or `2`, as `ResponseHead.httpVersion` spells it.
    let httpVersion: String
    /// The subject of the client's certificate (`CN=…`), when it presented one.
    let clientCertificateSubject: String?
}

/// An HTTPS server on 127.0.0.1 (a port of its own), built on SwiftNIO: TLS with a given identity,
/// optionally requiring a client certificate and offering HTTP/2 by ALPN. Every request gets
/// `200` with ``body``; the server records the requests it got and the connections it accepted.
final class TLSTestServer: Sendable {
    static let body = "hello over tls"

    /// The port on 127.0.0.1.
    let port: Int
    private let channel: any Channel
    private let recorder: Recorder

    /// `127.0.0.1:PORT`.
    var hostAndPort: String { "127.0.0.1:\(port)" }
    /// `localhost:PORT`.
    var localhostAndPort: String { "localhost:\(port)" }
    /// The requests received (HTTP requests, not TLS handshakes), in order.
    var requests: [ReceivedTLSRequest] { recorder.state.withLockedValue { $0.requests } }
    /// How many TCP connections the server accepted.
    var acceptedConnections: Int { recorder.state.withLockedValue { $0.connections.count } }

    /// Starts a server.
    /// - Parameters:
    ///   - identity: The server's certificate and key.
    ///   - clientRootPEM: When set, the server requires a client certificate issued by this root.
    ///   - offerHTTP2: Offer `h2` (then `http/1.1`) by ALPN.
    static func start(
        identity: TestIdentity, clientRootPEM: String? = nil, offerHTTP2: Bool = false
    ) async throws -> TLSTestServer {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8))
                .map { .certificate($0) },
            privateKey: .privateKey(
                try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)))
        if let clientRootPEM {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(clientRootPEM.utf8)))
            tls.certificateVerification = .noHostnameVerification
        }
        tls.applicationProtocols = offerHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let recorder = Recorder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                recorder.accepted(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    offerHTTP2
                        ? channel.configureHTTP2SecureUpgrade(
                            h2ChannelConfigurator: { connection in
                                connection.configureHTTP2Pipeline(
                                    mode: .server,
                                    inboundStreamInitializer: { stream in
                                        stream.eventLoop.makeCompletedFuture {
                                            try stream.pipeline.syncOperations.addHandlers(
                                                HTTP2FramePayloadToHTTP1ServerCodec(),
                                                Responder(recorder: recorder, connection: connection))
                                        }
                                    }
                                ).map { _ in }
                            },
                            http1ChannelConfigurator: { connection in
                                connection.eventLoop.makeCompletedFuture {
                                    try Self.addHTTP1(to: connection, recorder: recorder)
                                }
                            })
                        : channel.eventLoop.makeCompletedFuture {
                            try Self.addHTTP1(to: channel, recorder: recorder)
                        }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try await channel.close().get()
            throw ChannelError.unknownLocalAddress
        }
        return TLSTestServer(port: port, channel: channel, recorder: recorder)
    }

    private init(port: Int, channel: any Channel, recorder: Recorder) {
        self.port = port
        self.channel = channel
        self.recorder = recorder
    }

    private static func addHTTP1(to channel: any Channel, recorder: Recorder) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
        try channel.pipeline.syncOperations.addHandler(Responder(recorder: recorder, connection: channel))
    }

    /// Closes the listening socket and every accepted connection.
    func stop() async {
        try? await channel.close().get()
        for connection in recorder.state.withLockedValue({ $0.connections }) {
            try? await connection.close().get()
        }
    }

    final class Recorder: Sendable {
        struct State {
            var requests: [ReceivedTLSRequest] = []
            var connections: [any Channel] = []
        }
        let state = NIOLockedValueBox(State())

        func accepted(_ channel: any Channel) { state.withLockedValue { $0.connections.append(channel) } }
        func received(_ request: ReceivedTLSRequest) { state.withLockedValue { $0.requests.append(request) } }
    }

    /// Records each request and answers it with ``TLSTestServer/body``.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let recorder: Recorder
        /// The TLS connection (the parent of an HTTP/2 stream).
        private let connection: any Channel
        private var head: HTTPRequestHead?

        init(recorder: Recorder, connection: any Channel) {
            self.recorder = recorder
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body:
                break
            case .end:
                guard let head else { return }
                self.head = nil
                recorder.received(
                    ReceivedTLSRequest(
                        method: head.method.rawValue, uri: head.uri,
                        httpVersion: head.version.major == 2
                            ? "2" : "\(head.version.major).\(head.version.minor)",
                        clientCertificateSubject: clientCertificateSubject()))
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "text/plain")
                headers.add(name: "Content-Length", value: "\(TLSTestServer.body.utf8.count)")
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                    promise: nil)
                context.write(
                    wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: TLSTestServer.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }

        private func clientCertificateSubject() -> String? {
            guard let handler = try? connection.pipeline.syncOperations.handler(type: NIOSSLHandler.self),
                let certificate = handler.peerCertificate,
                let parsed = try? Certificate(derEncoded: certificate.toDERBytes())
            else { return nil }
            return String(describing: parsed.subject)
        }
    }
}
