import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import NetLayer

/// AsyncHTTPClient's and SwiftNIO's errors as the ones ``NetLayer/URLSessionTransport`` raises
/// for the same failure: the `URLError` code URLSession would use (so NetLayer's retry rules,
/// codes and messages are the same on both transports), `CancellationError`, or a
/// ``NetLayer/NetLayerError`` `.timedOut`. The original error stays as the `URLError`'s
/// underlying error. `Docs/Transports.md` has the table.
enum ErrorMapping {
    static func map(_ error: any Error, url: URL) -> any Error {
        switch error {
        case is NetLayerError, is CancellationError, is URLError, is AsyncHTTPClientTransportError:
            return error
        case let client as HTTPClientError:
            return map(client, url: url)
        case is HTTPParserError:
            return urlError(.badServerResponse, "the server's response is not valid HTTP", error, url)
        case is NIOHTTPDecompression.DecompressionError:
            return urlError(
                .cannotDecodeContentData,
                "the response's content coding cannot be decoded, or decodes to more than the allowed ratio",
                error, url)
        case let connection as NIOConnectionError:
            if connection.dnsAError != nil || connection.dnsAAAAError != nil,
                connection.connectionErrors.isEmpty
            {
                return urlError(.cannotFindHost, "the host name cannot be resolved", error, url)
            }
            return urlError(.cannotConnectToHost, "cannot connect to the host", error, url)
        case let channel as ChannelError:
            switch channel {
            case .connectTimeout:
                return NetLayerError.timedOut(
                    reason: "the connection was not established in time (connect timeout)")
            default:
                return urlError(.networkConnectionLost, "the connection was lost", error, url)
            }
        case is IOError:
            return urlError(.networkConnectionLost, "the connection was lost", error, url)
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return tlsError(error, url: url)
        default:
            return error
        }
    }

    private static func map(_ error: HTTPClientError, url: URL) -> any Error {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return CancellationError()
        case .readTimeout:
            return NetLayerError.timedOut(reason: "no data within the transport's idle timeout")
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            return NetLayerError.timedOut(reason: "the connection was not established in time (\(error))")
        case .deadlineExceeded:
            return NetLayerError.timedOut(reason: "the total deadline elapsed")
        case .remoteConnectionClosed:
            return urlError(.networkConnectionLost, "the server closed the connection", error, url)
        case .bodyLengthMismatch:
            return urlError(
                .requestBodyStreamExhausted, "the request body's length differs from the length announced",
                error,
                url)
        case .alreadyShutdown:
            return AsyncHTTPClientTransportError.shutDown
        case .invalidURL, .emptyHost, .emptyScheme:
            return urlError(.badURL, "the URL cannot be sent", error, url)
        case .identityCodingIncorrectlyPresent, .contentLengthMissing:
            return urlError(.badServerResponse, "the server's response is not valid HTTP", error, url)
        default:
            return urlError(.unknown, "the HTTP client failed", error, url)
        }
    }

    /// The alerts (BoringSSL's names, lowercased) a server sends about the client's certificate
    /// it refuses; the client's own verification of the server's certificate fails as
    /// `CERTIFICATE_VERIFY_FAILED` instead, never as an alert received.
    private static let clientCertificateAlerts = [
        "alert_bad_certificate", "alert_unsupported_certificate", "alert_certificate_revoked",
        "alert_certificate_expired", "alert_certificate_unknown", "alert_unknown_ca",
    ]

    /// A TLS failure: the server refused the client's certificate (`clientCertificateRequired`
    /// when none was sent, `clientCertificateRejected`), the server's certificate could not be
    /// trusted (`serverCertificateHasBadDate` when the error says it is expired or not yet valid;
    /// BoringSSL's `CERTIFICATE_VERIFY_FAILED` does not say why, so an expired certificate is
    /// `serverCertificateUntrusted` there), or the handshake failed.
    private static func tlsError(_ error: any Error, url: URL) -> URLError {
        let text = String(describing: error).lowercased()
        if text.contains("alert_certificate_required") {
            return urlError(
                .clientCertificateRequired, "the server requires a client certificate", error, url)
        }
        if clientCertificateAlerts.contains(where: { text.contains($0) }) {
            return urlError(
                .clientCertificateRejected, "the server refused the client certificate", error, url)
        }
        if text.contains("expired") || text.contains("not yet valid") {
            return urlError(
                .serverCertificateHasBadDate, "the server's certificate is expired or not yet valid", error,
                url)
        }
        if error is NIOSSLExtraError || text.contains("certificate_verify_failed")
            || text.contains("certificate verify")
        {
            return urlError(
                .serverCertificateUntrusted, "the server's certificate is not trusted for this host", error,
                url)
        }
        return urlError(.secureConnectionFailed, "the TLS handshake failed", error, url)
    }

    private static func urlError(
        _ code: URLError.Code, _ message: String, _ underlying: any Error, _ url: URL
    ) -> URLError {
        URLError(
            code,
            userInfo: [
                NSLocalizedDescriptionKey: "\(message) (\(underlying))",
                NSUnderlyingErrorKey: underlying as NSError,
            ])
    }
}
