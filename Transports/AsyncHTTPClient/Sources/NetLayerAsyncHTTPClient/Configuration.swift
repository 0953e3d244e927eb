import AsyncHTTPClient
import NIOCore
import NIOHTTPCompression
import NIOSSL
import NetLayer

extension AsyncHTTPClientTransport {
    /// How a transport's own client is set up. Every property has a default; NetLayer's decisions
    /// (no redirects, no connection retries inside the pool) are not settings.
    public struct Configuration: Sendable {
        /// TLS: trust roots, client certificate, minimum version. Default
        /// `TLSConfiguration.makeClientConfiguration()` (the system's roots, full verification).
        /// ``PinnedKeys`` add public-key pinning on top; ``trustingCertificates(pem:)`` and
        /// ``clientIdentity(certificateChainPEM:privateKeyPEM:)`` cover the usual changes.
        public var tls: TLSConfiguration = .makeClientConfiguration()
        /// Public keys pinned per host: a connection to a host listed here proceeds only if the
        /// server's certificate (already verified against the trust roots) carries one of them.
        /// Default none.
        public var pinnedKeys = PinnedKeys()
        /// HTTP/2 over TLS when the server offers it (ALPN), else HTTP/1.1. Default `.automatic`.
        public var httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic
        /// The longest time to open a connection (TCP and TLS). Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// The idle timeout of a call that sets none (`ResourceOptions.timeout` is `nil`): the
        /// longest time without bytes arriving. Default 60 s, as URLSession's default.
        public var defaultIdleTimeout: Duration? = .seconds(60)
        /// Connections opened at most per host for HTTP/1.1 (calls beyond wait for one). Default 8,
        /// AsyncHTTPClient's.
        public var maximumConnectionsPerHost = 8
        /// How long an unused connection stays open for the next call. Default 60 s.
        public var connectionIdleTimeout: Duration = .seconds(60)
        /// gzip and deflate responses are decoded, up to this ratio of decoded to received bytes (a
        /// guard against decompression bombs; past it the call fails). `nil` leaves bodies as they
        /// came and sends no `Accept-Encoding`. Default 100.
        public var decompressionRatioLimit: Int? = 100
        /// A proxy for every call. Default none.
        public var proxy: HTTPClient.Configuration.Proxy?

        /// Creates the default configuration.
        public init() {}

        /// Creates a configuration changed by `configure`, as `ResourceOptions { … }` does:
        /// `.init { $0.pinnedKeys["api.example.com"] = [pin, backup] }`.
        public init(_ configure: (inout Configuration) throws -> Void) rethrows {
            try configure(&self)
        }

        /// Trusts the certificates in `pem` (one or more PEM blocks) in place of the system's
        /// roots: a private CA, a test server's own root.
        /// - Throws: NIOSSL's error when `pem` holds no valid certificate.
        public mutating func trustingCertificates(pem: String) throws {
            let certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
            tls.trustRoots = .certificates(certificates)
        }

        /// Presents a client certificate (mutual TLS).
        /// - Parameters:
        ///   - certificateChainPEM: The certificate and its intermediates, PEM.
        ///   - privateKeyPEM: The certificate's private key, PEM.
        /// - Throws: NIOSSL's error when either cannot be read.
        public mutating func clientIdentity(certificateChainPEM: String, privateKeyPEM: String) throws {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem))
        }

        /// The client's configuration: these settings plus NetLayer's fixed decisions.
        func clientConfiguration() -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                timeout: .init(
                    connect: .nanoseconds(connectTimeout.nanosecondsClamped),
                    read: defaultIdleTimeout.map { .nanoseconds($0.nanosecondsClamped) }),
                proxy: proxy,
                decompression: decompressionRatioLimit.map { .enabled(limit: .ratio(max(1, $0))) }
                    ?? .disabled)
            configuration.httpVersion = httpVersion
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(
                1, maximumConnectionsPerHost)
            configuration.connectionPool.idleTimeout = .nanoseconds(connectionIdleTimeout.nanosecondsClamped)
            // A failed connection fails its calls at once: NetLayer's retry policy decides.
            configuration.connectionPool.retryConnectionEstablishment = false
            if !pinnedKeys.isEmpty {
                let check = pinnedKeys.connectionCheck()
                configuration.http1_1ConnectionDebugInitializer = check
                configuration.http2ConnectionDebugInitializer = check
            }
            return configuration
        }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at `Int64.max`.
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? 0 : .max }
        let (sum, overflowSum) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowSum ? .max : max(0, sum)
    }
}
