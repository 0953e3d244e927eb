import NIOCore
import NIOSSL
import X509

/// The names a certificate is valid for: its DNS and IP subject alternative names (RFC 6125; the
/// subject's common name is not used, as browsers no longer do).
struct CertificateNames {
    private var dnsNames: [String] = []
    /// Canonical spellings (NIO's) of the IP addresses.
    private var ipAddresses: [String] = []

    /// - Throws: swift-certificates' error when the certificate cannot be parsed.
    init(_ certificate: NIOSSLCertificate) throws {
        let parsed = try Certificate(derEncoded: certificate.toDERBytes())
        guard let names = try parsed.extensions.subjectAlternativeNames else { return }
        for name in names {
            switch name {
            case .dnsName(let dns): dnsNames.append(dns.lowercased())
            case .ipAddress(let bytes):
                let packed = ByteBuffer(bytes: bytes.bytes)
                if let address = try? SocketAddress(packedIPAddress: packed, port: 0).ipAddress {
                    ipAddresses.append(address)
                }
            default: continue
            }
        }
    }

    /// Whether the certificate is valid for `host` (a DNS name, or an IPv4/IPv6 literal).
    func cover(_ host: String) -> Bool {
        if let address = Self.canonicalAddress(host) { return ipAddresses.contains(address) }
        let host = host.lowercased()
        return dnsNames.contains { Self.matches(pattern: $0, host: host) }
    }

    /// RFC 6125 §6.4.3: an exact match, or `*.` matching exactly one leftmost label.
    static func matches(pattern: String, host: String) -> Bool {
        if pattern == host { return true }
        guard pattern.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        let label = host[..<dot]
        return !label.isEmpty && host[dot...] == pattern.dropFirst()
    }

    /// The canonical spelling of an IP literal (brackets allowed around IPv6), `nil` for a DNS
    /// name.
    static func canonicalAddress(_ host: String) -> String? {
        var literal = host
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        return (try? SocketAddress(ipAddress: literal, port: 0))?.ipAddress
    }
}
