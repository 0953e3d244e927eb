import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How NetLayer follows redirects (RFC 9110 §15.4). URLSession never follows them itself: NetLayer
/// decides every hop, the same on every platform.
///
/// - 307 and 308 keep the method and resend the exact body.
/// - 301 and 302 turn a POST into a GET; 303 turns anything but HEAD into a GET. The body and its
///   headers (`Content-Type`, `Content-Length`, `Content-Encoding`, …) are dropped then.
/// - When the scheme, host or port changes, the ``sensitiveHeaders`` (`Authorization`,
///   `Proxy-Authorization`, `Cookie`) are removed, and so is every header the resource's
///   ``Redaction`` treats as secret (`X-Api-Key`, …), so credentials never reach another origin.
/// - A `Location` carrying a user name or password is refused: a server cannot choose the
///   credentials a request carries (URLSession would turn them into an `Authorization` header).
/// - A redirect from `https` to `http` is refused unless ``allowsInsecureRedirects``.
public struct RedirectPolicy: Sendable, Hashable {
    /// The most redirects one call follows; one more throws ``NetLayerError/Code/tooManyRedirects``.
    /// `0` follows none: the 3xx response itself goes to validation (which rejects it by default;
    /// accept it with `Validation(acceptableStatusCodes: 200..<400)` to read its `Location`).
    public var maximum: Int
    /// Whether an `https` → `http` redirect is followed. Default `false`: it would send the request,
    /// and the response, in clear text.
    public var allowsInsecureRedirects: Bool
    /// Headers removed when a redirect leaves the origin (scheme, host or port), besides those the
    /// resource's ``Redaction`` treats as secret. Names compare case-insensitively.
    public var sensitiveHeaders: Set<String>

    /// Creates a policy; every argument defaults to ``default``'s value.
    public init(
        maximum: Int = 20, allowsInsecureRedirects: Bool = false,
        sensitiveHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie"]
    ) {
        self.maximum = max(0, maximum)
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
    }

    /// Up to 20 redirects (as browsers and curl allow), no downgrade to `http`, credentials kept
    /// within the origin.
    public static let `default` = RedirectPolicy()

    /// Follow no redirect: the 3xx response is the result.
    public static let doNotFollow = RedirectPolicy(maximum: 0)
}

/// One redirect that was followed.
public struct Redirect: Sendable, Hashable {
    /// The 3xx status.
    public let statusCode: Int
    /// The URL that answered with the redirect.
    public let from: URL
    /// The URL requested next.
    public let to: URL
    /// The method of the next request (GET after a 303, for example).
    public let method: HTTPMethod
    /// The secrets of the call that followed it, masked when it is printed (not compared).
    var secrets = CallSecrets.none
}

/// The pure part of following a redirect: from one request and its 3xx response to the next request.
enum RedirectRule {
    /// Whether NetLayer follows `status` (a 300 or 304 is a response in its own right).
    static func isFollowed(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Headers that describe the body; dropped with it when the method becomes GET.
    static let contentHeaders = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
        "Transfer-Encoding", "Digest", "Content-Digest",
    ]

    /// The request to send next, or nil when `response` is not a redirect to follow. `secrets`
    /// names the headers dropped, with the policy's, when the redirect leaves the origin.
    /// - Throws: ``NetLayerError`` `.redirectRefused` for a `Location` that is not an http(s) URL,
    ///   that carries a user name or password, or that is an insecure downgrade.
    static func next(
        after request: TransportRequest, response: ResponseHead, policy: RedirectPolicy,
        secrets: Redaction = .none
    ) throws(NetLayerError) -> (request: TransportRequest, redirect: Redirect)? {
        guard isFollowed(response.statusCode),
            let location = response.headerFields["Location"]
        else { return nil }
        let from = response.url ?? request.url
        let trimmed = location.trimmingCharacters(in: .whitespaces)
        guard let resolved = URL(string: trimmed, relativeTo: from)?.absoluteURL,
            let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https",
            resolved.host?.isEmpty == false
        else {
            throw .redirectRefused(
                "\(response.statusCode) redirect to \(location.debugDescription), which is not an http(s) URL"
            )
        }
        if resolved.user != nil || resolved.password != nil {
            throw .redirectRefused(
                "\(response.statusCode) redirect to a Location on \(resolved.host ?? "") that carries a user name or password"
            )
        }
        if from.scheme?.lowercased() == "https" && scheme == "http" && !policy.allowsInsecureRedirects {
            throw .redirectRefused(
                "\(response.statusCode) redirect from https to http refused (RedirectPolicy.allowsInsecureRedirects)"
            )
        }
        // A fragment is never sent.
        var target = resolved
        if resolved.fragment != nil, var parts = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        {
            parts.fragment = nil
            target = parts.url ?? resolved
        }

        var next = request
        next.url = target
        let method = request.method.rawValue
        let status = response.statusCode
        let becomesGET =
            (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGET {
            next.method = .get
            next.body = nil
            for name in contentHeaders { next.headerFields.remove(name) }
        }
        if !Origin.same(from, target) {
            for field in next.headerFields
            where policy.sensitiveHeaders.contains(field.name.lowercased()) || secrets.isSecret(field.name) {
                next.headerFields.remove(field.name)
            }
        }
        let redirect = Redirect(statusCode: status, from: from, to: target, method: next.method)
        return (next, redirect)
    }
}
