import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: routes callbacks to the ``TaskExchange`` of each task.
///
/// A session delegate rather than per-task delegates, because on Linux per-task delegates miss
/// redirects and completion. Sendable: its one stored property is a ``LockedValue`` (an `NSObject`
/// subclass may be `Sendable` when it holds only `Sendable` constants).
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What the delegate keeps between callbacks.
    private struct Registry {
        /// Keyed by task identity: with two sessions (see ``URLSessionTransport``) task identifiers
        /// repeat.
        var exchanges: [ObjectIdentifier: TaskExchange] = [:]
        /// 401 responses of challenged tasks that have no exchange (sent with `data(for:)`), until
        /// the sender claims them. Bounded, in case a sender was cancelled and never claims its entry.
    }

    private let registry = LockedValue(Registry())

    func register(_ exchange: TaskExchange) {
        registry.withLock { $0.exchanges[ObjectIdentifier(exchange.task)] = exchange }
    }

    func unregister(_ exchange: TaskExchange) {
        _ = registry.withLock { $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange.task)) }
    }

    private func exchange(for task: URLSessionTask) -> TaskExchange? {
        registry.withLock { $0.exchanges[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse { exchange(for: dataTask)?.receivedHead(http) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.receivedBody(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.sentBody(total: totalBytesSent)
    }

    /// NetLayer follows redirects itself (see ``RedirectRule``): URLSession hands the 3xx back.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // Linux URLSession waits forever on an HTTP auth challenge it has no credential for.
            // Keep the challenge's 401 response, stop the task, and hand the 401 to validation.
            if let response = challenge.failureResponse as? HTTPURLResponse {
                // Every Linux task is a registered exchange (the transport has no other path there).
                exchange(for: task)?.challenged(response)
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
        #else
            // Apple platforms: an HTTP authentication challenge (Basic, Digest, NTLM, Negotiate, a
            // form) is rejected, so URLSession delivers the 401 to NetLayer's validation and
            // authenticator instead of answering it from a credential storage, as on Linux.
            if Self.isHTTPAuthentication(challenge.protectionSpace.authenticationMethod) {
                completionHandler(.rejectProtectionSpace, nil)
                return
            }
        #endif
        // Server trust and client certificates: the system's own handling.
        completionHandler(.performDefaultHandling, nil)
    }

    /// Whether an authentication method is HTTP authentication (answered by NetLayer), rather than
    /// TLS server trust or a client certificate (left to the system).
    static func isHTTPAuthentication(_ method: String) -> Bool {
        httpAuthenticationMethods.contains(method)
    }

    /// The HTTP authentication methods (a `WWW-Authenticate` or `Proxy-Authenticate` challenge).
    static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic,
        NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodHTMLForm, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
    ]

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = registry.withLock { $0.exchanges.removeValue(forKey: ObjectIdentifier(task)) }
        exchange?.complete(error: error)
    }
}

extension Duration {
    /// `1.5 s`, `250 ms`.
    var formattedSeconds: String {
        let seconds = self.seconds
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        return "\((seconds * 1000).rounded() / 1000) s"
    }
}
