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
        var unclaimedChallenges: [(task: ObjectIdentifier, request: URLRequest?, response: HTTPURLResponse)] =
            []
    }

    private let registry = LockedValue(Registry())
    private static let unclaimedLimit = 64

    func register(_ exchange: TaskExchange) {
        registry.withLock { $0.exchanges[ObjectIdentifier(exchange.task)] = exchange }
    }

    func unregister(_ exchange: TaskExchange) {
        _ = registry.withLock { $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange.task)) }
    }

    /// The 401 response recorded for a request sent with `data(for:)`, if its task was challenged:
    /// found by the task's identity when the sender knows it, else by the request itself (URL,
    /// method, body and every header field the sender set).
    func takeChallengeResponse(task: ObjectIdentifier?, request: URLRequest) -> HTTPURLResponse? {
        registry.withLock { registry in
            let index =
                task.flatMap { id in registry.unclaimedChallenges.firstIndex { $0.task == id } }
                ?? registry.unclaimedChallenges.firstIndex {
                    $0.request.map { Self.sameRequest($0, request) } ?? false
                }
            guard let index else { return nil }
            return registry.unclaimedChallenges.remove(at: index).response
        }
    }

    /// Whether a task's request is the one a sender made (URLSession may add fields of its own).
    private static func sameRequest(_ sent: URLRequest, _ made: URLRequest) -> Bool {
        guard sent.url == made.url, (sent.httpMethod ?? "GET") == (made.httpMethod ?? "GET"),
            sent.httpBody == made.httpBody
        else { return false }
        let sentFields = sent.allHTTPHeaderFields ?? [:]
        return (made.allHTTPHeaderFields ?? [:]).allSatisfy { name, value in
            sentFields.first { $0.key.caseInsensitiveEquals(name) }?.value == value
        }
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
                if let exchange = exchange(for: task) {
                    exchange.challenged(response)
                } else {
                    let request = task.originalRequest
                    registry.withLock { registry in
                        if registry.unclaimedChallenges.count >= Self.unclaimedLimit {
                            registry.unclaimedChallenges.removeFirst()
                        }
                        registry.unclaimedChallenges.append((ObjectIdentifier(task), request, response))
                    }
                }
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

/// Linux only: the per-task delegate of every `data(for:)` and `upload(for:fromFile:)` call. When
/// Linux URLSession meets a `401` with a challenge, the session delegate must cancel the task (else
/// it waits forever), and `data(for:)` then throws away the body it had already read: Foundation
/// keeps it only for the completion handler, which a cancelled task never gets. This delegate sees
/// each chunk before that, and keeps the whole body of a `401` — and nothing of any other status —
/// so the call reports the same 401 body as a delegate-driven task, from the first challenge on.
/// Sendable: its one stored property is a ``LockedValue``.
final class ChallengeBodyRecorder: NSObject, URLSessionDataDelegate, Sendable {
    private struct Record {
        var bytes = Data()
        var task: ObjectIdentifier?
    }

    private let record = LockedValue(Record())

    /// The task's identity, once a body byte arrived.
    var task: ObjectIdentifier? { record.withLock { $0.task } }
    /// The body of the `401`, whole (empty for any other status).
    var body: Data { record.withLock { $0.bytes } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Foundation sets the task's response before it hands on the first body byte.
        let challengeable = (dataTask.response as? HTTPURLResponse)?.statusCode == 401
        let id = ObjectIdentifier(dataTask)
        record.withLock { record in
            record.task = id
            if challengeable { record.bytes.append(data) }
        }
    }
}
