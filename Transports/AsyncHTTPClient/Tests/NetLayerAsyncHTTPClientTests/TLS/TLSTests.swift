import Foundation
import NetLayer
import Testing

@testable import NetLayerAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An https resource on the TLS test server.
final class TLSAPI: Resource, @unchecked Sendable {
    init(domain: String, transport: any Transport) {
        super.init(protocol: .https, domain: domain, transport: transport)
    }

    func target(_ path: String) -> Target { Target(resource: self, path: path) }
}

/// TLS through a NetLayer resource over AsyncHTTPClient, against a local server on 127.0.0.1:
/// trust roots, public-key pins, certificate failures, client certificates and HTTP/2 by ALPN.
/// Each test asserts the call's outcome and what the server received.
@Suite(.timeLimit(.minutes(1))) struct TLSTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    /// A configuration trusting the test root only (not the system's roots).
    func trustingRoot(_ configure: (inout AsyncHTTPClientTransport.Configuration) throws -> Void = { _ in })
        throws -> AsyncHTTPClientTransport.Configuration
    {
        try AsyncHTTPClientTransport.Configuration {
            try $0.trustingCertificates(pem: pki.root.certificatePEM)
            try configure(&$0)
        }
    }

    /// `GET /hello` on `domain`, through a transport made from `configuration`.
    func get(_ domain: String, _ configuration: AsyncHTTPClientTransport.Configuration) async throws
        -> Response<Data>
    {
        try await withTransport(configuration) { transport in
            try await TLSAPI(domain: domain, transport: transport).target("/hello").makeExecutor().response()
        }
    }

    /// The error of `GET /hello` on `domain`; records an issue when the call succeeds.
    func failure(_ domain: String, _ configuration: AsyncHTTPClientTransport.Configuration) async throws
        -> NetLayerError
    {
        let error = await #expect(throws: NetLayerError.self) {
            _ = try await get(domain, configuration)
        }
        return try #require(error)
    }

    func expectOneRequest(_ server: TLSTestServer, version: String = "1.1", clientCertificate: String? = nil)
    {
        #expect(
            server.requests
                == [
                    ReceivedTLSRequest(
                        method: "GET", uri: "/hello", httpVersion: version,
                        clientCertificateSubject: clientCertificate)
                ])
    }

    /// The server was reached once (one TCP connection, no retry) and got no HTTP request.
    func expectRefusedBeforeAnyRequest(_ server: TLSTestServer) {
        #expect(server.acceptedConnections == 1)
        #expect(server.requests.isEmpty)
    }

    // MARK: - Trust

    @Test(arguments: [false, true])
    func aTrustedCustomRootPasses(byName: Bool) async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let domain = byName ? server.localhostAndPort : server.hostAndPort
        let response = try await get(domain, try trustingRoot())
        await server.stop()
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.data, as: UTF8.self) == TLSTestServer.body)
        #expect(response.head.httpVersion == "1.1")
        expectOneRequest(server)
    }

    @Test func anUnknownRootFailsAsUntrusted() async throws {
        let server = try await TLSTestServer.start(identity: pki.serverFromOtherRoot)
        let error = try await failure(server.hostAndPort, try trustingRoot())
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.urlError?.code == .serverCertificateUntrusted)
        expectRefusedBeforeAnyRequest(server)
    }

    /// BoringSSL reports an expired certificate as it reports an unknown root (only
    /// `CERTIFICATE_VERIFY_FAILED`, the reason stays inside the handshake), so the transport
    /// cannot tell `.serverCertificateHasBadDate` apart: the call fails as untrusted.
    @Test func anExpiredCertificateFailsAsUntrusted() async throws {
        let server = try await TLSTestServer.start(identity: pki.expiredServer)
        let error = try await failure(server.hostAndPort, try trustingRoot())
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.urlError?.code == .serverCertificateUntrusted)
        expectRefusedBeforeAnyRequest(server)
    }

    @Test func aCertificateForAnotherNameFailsAsUntrusted() async throws {
        let server = try await TLSTestServer.start(identity: pki.wrongNameServer)
        let error = try await failure(server.hostAndPort, try trustingRoot())
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.urlError?.code == .serverCertificateUntrusted)
        expectRefusedBeforeAnyRequest(server)
    }

    // MARK: - Pins

    @Test func theRightPinPasses() async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let pin = try PinnedKeys.pin(ofCertificatePEM: pki.server.certificatePEM)
        let response = try await get(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["127.0.0.1"] = [pin] })
        await server.stop()
        #expect(response.statusCode == 200)
        expectOneRequest(server)
    }

    @Test func aWrongPinFailsNamingTheHostBeforeAnyRequest() async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let wrong = try PinnedKeys.pin(ofCertificatePEM: pki.serverFromOtherRoot.certificatePEM)
        let error = try await failure(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["127.0.0.1"] = [wrong] })
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.underlying as? AsyncHTTPClientTransportError == .pinMismatch(host: "127.0.0.1"))
        #expect(error.urlError == nil)
        expectRefusedBeforeAnyRequest(server)
    }

    @Test func aBackupPinPasses() async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let wrong = try PinnedKeys.pin(ofCertificatePEM: pki.serverFromOtherRoot.certificatePEM)
        let right = try PinnedKeys.pin(ofCertificatePEM: pki.server.certificatePEM)
        #expect(wrong != right)
        let response = try await get(
            server.localhostAndPort, try trustingRoot { $0.pinnedKeys["LocalHost"] = [wrong, right] })
        await server.stop()
        #expect(response.statusCode == 200)
        expectOneRequest(server)
    }

    /// The certificate is valid for `localhost` and `127.0.0.1`; a wrong pin for `localhost` is
    /// enforced on a call to `127.0.0.1` too (the check goes by the certificate's names: the
    /// documented conservative behaviour).
    @Test func aPinForAnotherNameOfTheCertificateIsEnforced() async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let wrong = try PinnedKeys.pin(ofCertificatePEM: pki.serverFromOtherRoot.certificatePEM)
        let error = try await failure(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["localhost"] = [wrong] })
        await server.stop()
        #expect(error.underlying as? AsyncHTTPClientTransportError == .pinMismatch(host: "localhost"))
        expectRefusedBeforeAnyRequest(server)
    }

    /// Pins for a host the certificate is not valid for do not apply to it.
    @Test func aPinForAnUnrelatedHostDoesNotApply() async throws {
        let server = try await TLSTestServer.start(identity: pki.server)
        let wrong = try PinnedKeys.pin(ofCertificatePEM: pki.serverFromOtherRoot.certificatePEM)
        let response = try await get(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["example.invalid"] = [wrong] })
        await server.stop()
        #expect(response.statusCode == 200)
        expectOneRequest(server)
    }

    // MARK: - Client certificates

    @Test func aServerRequiringAClientCertificateAcceptsTheIdentity() async throws {
        let server = try await TLSTestServer.start(
            identity: pki.server, clientRootPEM: pki.clientRoot.certificatePEM)
        let configuration = try trustingRoot {
            try $0.clientIdentity(
                certificateChainPEM: pki.client.certificatePEM, privateKeyPEM: pki.client.privateKeyPEM)
        }
        let response = try await get(server.hostAndPort, configuration)
        await server.stop()
        #expect(response.statusCode == 200)
        expectOneRequest(server, clientCertificate: "CN=netlayer-test-client")
    }

    @Test func aServerRequiringAClientCertificateRefusesACallWithout() async throws {
        let server = try await TLSTestServer.start(
            identity: pki.server, clientRootPEM: pki.clientRoot.certificatePEM)
        let error = try await failure(server.hostAndPort, try trustingRoot())
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.urlError?.code == .clientCertificateRequired)
        expectRefusedBeforeAnyRequest(server)
    }

    /// A client certificate the server does not accept (its alert names the client's
    /// certificate, not the server's).
    @Test(arguments: [false, true])
    func aServerRequiringAClientCertificateRejectsABadOne(expired: Bool) async throws {
        let server = try await TLSTestServer.start(
            identity: pki.server, clientRootPEM: pki.clientRoot.certificatePEM)
        let identity = expired ? pki.expiredClient : pki.clientFromOtherRoot
        let configuration = try trustingRoot {
            try $0.clientIdentity(
                certificateChainPEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        }
        let error = try await failure(server.hostAndPort, configuration)
        await server.stop()
        #expect(error.code == .transport)
        #expect(error.urlError?.code == .clientCertificateRejected)
        expectRefusedBeforeAnyRequest(server)
    }

    // MARK: - HTTP/2

    @Test func http2IsUsedWhenTheServerOffersIt() async throws {
        let server = try await TLSTestServer.start(identity: pki.server, offerHTTP2: true)
        let response = try await get(server.hostAndPort, try trustingRoot())
        await server.stop()
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.data, as: UTF8.self) == TLSTestServer.body)
        #expect(response.head.httpVersion == "2")
        expectOneRequest(server, version: "2")
    }

    @Test func http1IsUsedWhenTheClientAsksForIt() async throws {
        let server = try await TLSTestServer.start(identity: pki.server, offerHTTP2: true)
        let response = try await get(server.hostAndPort, try trustingRoot { $0.httpVersion = .http1Only })
        await server.stop()
        #expect(response.head.httpVersion == "1.1")
        expectOneRequest(server, version: "1.1")
    }

    @Test func aWrongPinFailsOverHTTP2Too() async throws {
        let server = try await TLSTestServer.start(identity: pki.server, offerHTTP2: true)
        let wrong = try PinnedKeys.pin(ofCertificatePEM: pki.serverFromOtherRoot.certificatePEM)
        let error = try await failure(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["127.0.0.1"] = [wrong] })
        await server.stop()
        #expect(error.underlying as? AsyncHTTPClientTransportError == .pinMismatch(host: "127.0.0.1"))
        expectRefusedBeforeAnyRequest(server)
    }

    @Test func theRightPinPassesOverHTTP2() async throws {
        let server = try await TLSTestServer.start(identity: pki.server, offerHTTP2: true)
        let pin = try PinnedKeys.pin(ofCertificatePEM: pki.server.certificatePEM)
        let response = try await get(
            server.hostAndPort, try trustingRoot { $0.pinnedKeys["127.0.0.1"] = [pin] })
        await server.stop()
        #expect(response.head.httpVersion == "2")
        expectOneRequest(server, version: "2")
    }
}
