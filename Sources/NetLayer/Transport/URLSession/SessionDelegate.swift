import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: routes callbacks to the ``TaskExchange`` of each task.
///
/// A session delegate rather than per-task delegates, because on Linux per-task delegates miss
/// redirects and completion. Unchecked Sendable: its mutable fields (`exchanges`, `unclaimedChallenges`, `challengedHosts`) are only touched under `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    /// Keyed by task identity: with two sessions (see ``URLSessionTransport``) task identifiers repeat.
    private var exchanges: [ObjectIdentifier: TaskExchange] = [:]
    /// 401 responses of challenged tasks that have no exchange (sent with `data(for:)`), until the
    /// sender claims them. Bounded, in case a sender was cancelled and never claims its entry.
    private var unclaimedChallenges:
        [(task: ObjectIdentifier, request: URLRequest?, response: HTTPURLResponse)] = []
    private static let unclaimedLimit = 64
    /// Linux: hosts (`scheme://host:port`) that have sent an authentication challenge; their
    /// `data(for:)` calls record the body (see ``ChallengeBodyRecorder``). Bounded: past 1,024 hosts
    /// it starts afresh.
    private var challengedHosts: Set<String> = []

    /// Whether `host` has sent an authentication challenge before (cheap when none ever did).
    func hasChallenged(_ host: @autoclosure () -> String) -> Bool {
        lock.withLock { !challengedHosts.isEmpty && challengedHosts.contains(host()) }
    }

    /// Remembers that `host` sent an authentication challenge.
    func noteChallenge(from host: String) {
        lock.withLock {
            if challengedHosts.count >= 1024 { challengedHosts.removeAll() }
            challengedHosts.insert(host)
        }
    }

    func register(_ exchange: TaskExchange) {
        lock.withLock { exchanges[ObjectIdentifier(exchange.task)] = exchange }
    }

    func unregister(_ exchange: TaskExchange) {
        _ = lock.withLock { exchanges.removeValue(forKey: ObjectIdentifier(exchange.task)) }
    }

    /// The 401 response recorded for a request sent with `data(for:)`, if its task was challenged:
    /// found by the task's identity when the sender knows it (it saw body bytes), else by the request
    /// itself (URL, method, body and every header field the sender set).
    func takeChallengeResponse(task: ObjectIdentifier?, request: URLRequest) -> HTTPURLResponse? {
        lock.withLock {
            let index =
                task.flatMap { id in unclaimedChallenges.firstIndex { $0.task == id } }
                ?? unclaimedChallenges.firstIndex {
                    $0.request.map { Self.sameRequest($0, request) } ?? false
                }
            guard let index else { return nil }
            return unclaimedChallenges.remove(at: index).response
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
        lock.withLock { exchanges[ObjectIdentifier(task)] }
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
                    lock.withLock {
                        if unclaimedChallenges.count >= Self.unclaimedLimit {
                            unclaimedChallenges.removeFirst()
                        }
                        unclaimedChallenges.append((ObjectIdentifier(task), request, response))
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
        let exchange = lock.withLock { exchanges.removeValue(forKey: ObjectIdentifier(task)) }
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

/// Linux only: the per-task delegate of a `data(for:)` call to a host that has sent an
/// authentication challenge before. It keeps the first bytes of the body, because when Linux
/// URLSession meets a `401` with a `Basic` challenge, the session delegate must cancel the task, and
/// `data(for:)` then throws away the body it had already read. With these bytes the call reports
/// the same 401 body as a delegate-driven task. Not used for every call: each body chunk then hops
/// through the delegate queue, which costs 5–8% of GET throughput. Unchecked Sendable: the fields
/// are only touched under `lock`.
final class ChallengeBodyRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The most body bytes kept: an error page, never a download.
    static let limit = 64 * 1024
    private let lock = NSLock()
    private var bytes = Data()
    private var taskID: ObjectIdentifier?

    /// The task's identity, once a body byte arrived.
    var task: ObjectIdentifier? { lock.withLock { taskID } }
    /// The first ``limit`` bytes of the body.
    var body: Data { lock.withLock { bytes } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            taskID = ObjectIdentifier(dataTask)
            let room = Self.limit - bytes.count
            if room > 0 { bytes.append(data.prefix(room)) }
        }
    }
}
