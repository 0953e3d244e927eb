import NIOSSL
import Testing

@testable import NetLayerAsyncHTTPClient

/// Which pinned hosts a certificate is checked against: every name it is valid for (DNS names,
/// wildcards for one label, IP addresses in any spelling), hosts matched case-insensitively.
@Suite struct PinnedKeysNameTests {
    static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]

    let certificate: NIOSSLCertificate
    let rightPin: String
    let wrongPin: String

    init() throws {
        let pki = try TestPKI()
        let identity = try pki.root.issue(
            commonName: "wildcard", dnsNames: ["*.example.test", "Exact.Example.Org"],
            ipAddresses: [TestPKI.loopbackIPv4, Self.ipv6Loopback])
        certificate = try NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem)
        rightPin = try PinnedKeys.pin(ofCertificatePEM: identity.certificatePEM)
        wrongPin = try PinnedKeys.pin(ofCertificatePEM: pki.server.certificatePEM)
    }

    func refused(_ host: String, pin: String? = nil) -> String? {
        var pins = PinnedKeys()
        pins[host] = [pin ?? wrongPin]
        return pins.refusedHost(certificate)
    }

    @Test(arguments: ["api.example.test", "API.Example.TEST", "exact.example.org"])
    func aWrongPinForANameTheCertificateCoversIsRefused(host: String) {
        #expect(refused(host) == host.lowercased())
    }

    @Test(arguments: ["api.example.test", "API.Example.TEST", "127.0.0.1", "::1"])
    func theRightPinForANameTheCertificateCoversPasses(host: String) {
        #expect(refused(host, pin: rightPin) == nil)
    }

    /// `*.example.test` covers one leftmost label only: not the bare domain, not two labels.
    @Test(arguments: ["example.test", "a.b.example.test", "example.org", "other.example.org"])
    func aPinForANameTheCertificateDoesNotCoverDoesNotApply(host: String) {
        #expect(refused(host) == nil)
    }

    /// IP addresses compare in canonical form: any spelling of a covered address is checked.
    @Test(arguments: ["127.0.0.1", "::1", "[::1]", "0:0:0:0:0:0:0:1"])
    func aWrongPinForACoveredAddressIsRefused(host: String) {
        #expect(refused(host) == host)
    }

    @Test func aPinForAnAddressTheCertificateDoesNotCoverDoesNotApply() {
        #expect(refused("127.0.0.2") == nil)
        #expect(refused("::2") == nil)
    }

    /// Several pinned hosts: the first (by name) the certificate covers with a wrong pin is named.
    @Test func onlyCoveredHostsWithAWrongPinAreNamed() {
        var pins = PinnedKeys()
        pins["a.example.org"] = [wrongPin]
        pins["b.example.test"] = [rightPin]
        pins["c.example.test"] = [wrongPin, rightPin]
        #expect(pins.refusedHost(certificate) == nil)
        pins["d.example.test"] = [wrongPin]
        #expect(pins.refusedHost(certificate) == "d.example.test")
    }

    @Test func noCertificateIsRefusedForEveryPinnedHost() {
        var pins = PinnedKeys()
        pins["b.example.test"] = [rightPin]
        pins["a.example.org"] = [rightPin]
        #expect(pins.refusedHost(nil) == "a.example.org")
    }

    @Test func wildcardMatching() {
        #expect(CertificateNames.matches(pattern: "*.example.test", host: "api.example.test"))
        #expect(CertificateNames.matches(pattern: "api.example.test", host: "api.example.test"))
        #expect(!CertificateNames.matches(pattern: "*.example.test", host: "example.test"))
        #expect(!CertificateNames.matches(pattern: "*.example.test", host: "a.b.example.test"))
        #expect(!CertificateNames.matches(pattern: "*.example.test", host: ".example.test"))
        #expect(!CertificateNames.matches(pattern: "*.example.test", host: "apiexample.test"))
        #expect(!CertificateNames.matches(pattern: "api.*.test", host: "api.example.test"))
    }
}
