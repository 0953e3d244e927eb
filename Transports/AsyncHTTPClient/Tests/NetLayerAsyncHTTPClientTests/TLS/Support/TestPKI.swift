import Crypto
import Foundation
import X509

/// A certificate and its private key, both PEM.
struct TestIdentity: Sendable {
    let certificatePEM: String
    let privateKeyPEM: String
}

/// A certificate authority made for one test: a self-signed P-256 root that issues leaves.
struct TestAuthority: Sendable {
    let name: DistinguishedName
    let privateKey: Certificate.PrivateKey
    let certificatePEM: String

    /// A new self-signed root, valid from an hour ago for a day.
    init(commonName: String) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        self.name = name
        self.privateKey = Certificate.PrivateKey(key)
        self.certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// A leaf signed by this authority, with a new P-256 key.
    /// - Parameters:
    ///   - dnsNames: DNS subject alternative names.
    ///   - ipAddresses: IPv4 subject alternative names, as 4 bytes each.
    ///   - validity: When the certificate is valid; default from an hour ago for a day.
    ///   - usage: `.serverAuth` for a server, `.clientAuth` for a client.
    func issue(
        commonName: String,
        dnsNames: [String] = [],
        ipAddresses: [[UInt8]] = [],
        validity: ClosedRange<Date>? = nil,
        usage: ExtendedKeyUsage.Usage = .serverAuth
    ) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let validity = validity ?? now.addingTimeInterval(-3600)...now.addingTimeInterval(86_400)
        var names: [GeneralName] = dnsNames.map { .dnsName($0) }
        names += ipAddresses.map { .ipAddress(.init(contentBytes: $0[...])) }
        let subjectNames = names
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: name,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage])
                if !subjectNames.isEmpty { SubjectAlternativeNames(subjectNames) }
            },
            issuerPrivateKey: privateKey)
        return TestIdentity(
            certificatePEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation)
    }
}

/// Everything the TLS tests need, generated fresh: a root and an unrelated root, server leaves
/// (good, expired, for another name), and a client CA with a client certificate.
struct TestPKI: Sendable {
    static let loopbackIPv4: [UInt8] = [127, 0, 0, 1]

    let root: TestAuthority
    let otherRoot: TestAuthority
    /// Valid for `localhost` (DNS) and `127.0.0.1` (IP), signed by `root`.
    let server: TestIdentity
    /// Valid for `localhost` and `127.0.0.1`, signed by `otherRoot` (so untrusted by `root`).
    let serverFromOtherRoot: TestIdentity
    /// Valid for `localhost` and `127.0.0.1`, expired yesterday, signed by `root`.
    let expiredServer: TestIdentity
    /// Valid only for `example.invalid`, signed by `root`.
    let wrongNameServer: TestIdentity
    let clientRoot: TestAuthority
    /// A client certificate signed by `clientRoot`.
    let client: TestIdentity
    /// A client certificate signed by `otherRoot` (unknown to a server trusting `clientRoot`).
    let clientFromOtherRoot: TestIdentity
    /// A client certificate signed by `clientRoot`, expired yesterday.
    let expiredClient: TestIdentity

    init() throws {
        root = try TestAuthority(commonName: "NetLayer Test Root")
        otherRoot = try TestAuthority(commonName: "NetLayer Unrelated Root")
        server = try root.issue(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: [Self.loopbackIPv4])
        serverFromOtherRoot = try otherRoot.issue(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: [Self.loopbackIPv4])
        let now = Date()
        expiredServer = try root.issue(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: [Self.loopbackIPv4],
            validity: now.addingTimeInterval(-172_800)...now.addingTimeInterval(-86_400))
        wrongNameServer = try root.issue(commonName: "example.invalid", dnsNames: ["example.invalid"])
        clientRoot = try TestAuthority(commonName: "NetLayer Test Client Root")
        client = try clientRoot.issue(commonName: "netlayer-test-client", usage: .clientAuth)
        clientFromOtherRoot = try otherRoot.issue(commonName: "netlayer-test-client", usage: .clientAuth)
        expiredClient = try clientRoot.issue(
            commonName: "netlayer-test-client",
            validity: now.addingTimeInterval(-172_800)...now.addingTimeInterval(-86_400), usage: .clientAuth)
    }
}
