import Crypto
import Foundation
import NIOCore
import NIOSSL

/// Public keys pinned per host: the SHA-256 of a certificate's SubjectPublicKeyInfo (DER),
/// base64-encoded, as HPKP and `openssl x509 -pubkey | openssl pkey -pubin -outform der |
/// openssl dgst -sha256 -binary | base64` spell it.
///
/// A connection to a pinned host proceeds only when the server's certificate, after the usual
/// verification against the trust roots, carries one of the host's keys; otherwise it is closed
/// before any request is written, and the call fails with
/// ``AsyncHTTPClientTransportError/pinMismatch(host:)``. List the current key and at least one
/// backup key, so a certificate can be rotated without a release. Hosts without pins connect as
/// usual. Host names match exactly, case-insensitively.
public struct PinnedKeys: Sendable, Hashable {
    /// Host (lowercased) to the base64 SHA-256 digests of the allowed keys.
    private var pins: [String: Set<String>] = [:]

    /// No pins.
    public init() {}

    /// Whether no host is pinned.
    public var isEmpty: Bool { pins.isEmpty }

    /// The pins of `host`: base64 SHA-256 digests of SubjectPublicKeyInfo. Setting an empty list
    /// removes the host's pins.
    public subscript(host: String) -> [String] {
        get { pins[host.lowercased()].map { $0.sorted() } ?? [] }
        set { pins[host.lowercased()] = newValue.isEmpty ? nil : Set(newValue) }
    }

    /// The pin of a certificate's public key, to list in ``subscript(_:)``.
    /// - Parameter pem: The certificate, PEM.
    /// - Throws: NIOSSL's error when `pem` is not a certificate.
    public static func pin(ofCertificatePEM pem: String) throws -> String {
        try pin(of: NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem))
    }

    static func pin(of certificate: NIOSSLCertificate) throws -> String {
        let spki = try certificate.extractPublicKey().toSPKIBytes()
        return Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    /// The check AsyncHTTPClient runs on each new connection, once TLS is established and before
    /// any request is written on it. The connection's pool does not say which host it was opened
    /// for, so the check goes by the certificate: it already passed hostname verification, so
    /// every name it is valid for (its DNS and IP subject alternative names, wildcards included)
    /// could be the host asked for; each of those names that is pinned must list its key. A
    /// certificate for a pinned host (a forged one from a trusted CA, say) is therefore refused,
    /// and so is, conservatively, a certificate shared with a pinned host whose key is not pinned.
    /// A mismatch closes the connection and fails it.
    func connectionCheck() -> @Sendable (Channel) -> EventLoopFuture<Void> {
        { [self] channel in
            channel.pipeline.handler(type: NIOSSLHandler.self).flatMap { handler in
                if let refused = self.refusedHost(handler.peerCertificate) {
                    channel.close(promise: nil)
                    return channel.eventLoop.makeFailedFuture(
                        AsyncHTTPClientTransportError.pinMismatch(host: refused))
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }.flatMapError { error in
                // No TLS handler: a plain http connection, nothing to pin.
                if error is ChannelPipelineError { return channel.eventLoop.makeSucceededVoidFuture() }
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }

    /// The first pinned host `certificate` is valid for whose pins do not list its key; `nil` when
    /// there is none. A certificate that cannot be read is refused for every pinned host.
    func refusedHost(_ certificate: NIOSSLCertificate?) -> String? {
        guard let certificate, let names = try? CertificateNames(certificate) else {
            return pins.keys.sorted().first
        }
        let pin = try? Self.pin(of: certificate)
        for (host, allowed) in pins.sorted(by: { $0.key < $1.key }) where names.cover(host) {
            if let pin, allowed.contains(pin) { continue }
            return host
        }
        return nil
    }
}
