import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP service: where it lives, what every request to it carries, and how requests are sent.
///
/// Subclass it once per service and hand its targets to callers:
/// ```swift
/// final class BookstoreAPI: Resource, @unchecked Sendable {
///     init(token: String) {
///         super.init(protocol: .https, domain: "api.example.com", version: "v1",
///                    defaultHeaders: ["Authorization": "Bearer \(token)"])
///     }
///     func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }
/// }
/// ```
/// A resource is immutable after `init`. It owns one transport (one `URLSession`) and one
/// ``RequestLimiter`` (its own, or one shared with other resources), used by every request made
/// through its targets. Credentials that change (tokens that expire) come from an
/// ``Authentication`` in its options, so the resource never needs to be rebuilt.
///
/// Sendable without compiler checking, because the compiler cannot check an `open` class; every
/// stored property is a `let` of a `Sendable` type. Swift 6 asks each subclass to restate the
/// conformance (as in the example above): the subclass's promise to keep to the same rule.
open class Resource: @unchecked Sendable {
    /// `http` or `https`.
    public let scheme: URLScheme
    /// Host, optionally with a port and a base path: `api.example.com`, `127.0.0.1:8080`,
    /// `rpc.example.com/v3`.
    public let domain: String
    /// An optional path component after the domain: `v1`, `api/v2`.
    public let version: String?
    /// Headers every request carries unless a target or the call overrides them.
    public let defaultHeaders: [String: String]
    /// Params every request carries unless a target or the call overrides them.
    public let defaultParams: Params
    /// The rate limits every request of this resource waits for (its ``limiter``'s).
    public var rateLimits: [RateLimit] { limiter.rateLimits }
    /// Admission: concurrency limit, rate limits and pauses asked by the server; possibly shared
    /// with other resources.
    public let limiter: RequestLimiter
    /// What sends requests; a ``URLSessionTransport`` unless one was given.
    public let transport: any Transport
    /// Encoders, validation, timeouts and debug settings.
    public let options: ResourceOptions

    /// The first invalid limit, thrown by every call (the `init` itself never throws).
    let rateLimitProblem: NetLayerError?
    /// The live tokens of ``ResourceOptions/retryBudget``.
    let retryTokens: RetryTokens
    /// The stages every call of this resource runs, decided once from ``options``.
    let pipeline: Pipeline
    let base: Result<String, NetLayerError>
    /// `defaultHeaders` validated once; a bad one fails every call, before anything is sent.
    let defaultHeaderFields: Result<HeaderFields, NetLayerError>
    /// `defaultParams` converted once.
    let defaultParamValues: [String: ParamValue]
    /// The URLs this resource's calls parsed lately.
    let parsedURLs = ParsedURLs()

    /// Creates a resource.
    /// - Parameters:
    ///   - scheme: Default `.https`.
    ///   - domain: Host with optional port and base path. An unusable domain does not crash: every
    ///     call throws ``NetLayerError/Code/invalidURL`` naming it.
    ///   - version: Optional path component joined after the domain. Default `nil`.
    ///   - defaultHeaders: Default none.
    ///   - defaultParams: Default none.
    ///   - rateLimits: Every limit must allow a request before it starts. Default none (no waiting,
    ///     no actor hop). An invalid limit (fewer than 1 request, a window of zero or less) makes
    ///     every call throw ``NetLayerError/Code/invalidValue``.
    ///   - maxConcurrentRequests: The most requests in flight at once. Default `nil` (no limit).
    ///     Less than 1 makes every call throw ``NetLayerError/Code/invalidValue``.
    ///   - limiter: A ``RequestLimiter`` shared with other resources, used instead of one made from
    ///     `rateLimits` and `maxConcurrentRequests` (giving both makes every call throw
    ///     ``NetLayerError/Code/invalidValue``). Default `nil`.
    ///   - transport: Default: a new ``URLSessionTransport`` with
    ///     ``URLSessionTransport/defaultConfiguration``, owned by this resource.
    ///   - options: Default ``ResourceOptions/init(encoder:decoder:paramStyle:bodyParams:validation:timeout:resourceTimeout:redirects:debug:log:redaction:errorMapping:interceptors:retryPolicy:retryBudget:authentication:maximumResponseSize:observer:cookieJar:cache:)``.
    public init(
        protocol scheme: URLScheme = .https,
        domain: String,
        version: String? = nil,
        defaultHeaders: [String: String] = [:],
        defaultParams: Params = [:],
        rateLimits: [RateLimit] = [],
        maxConcurrentRequests: Int? = nil,
        limiter: RequestLimiter? = nil,
        transport: (any Transport)? = nil,
        options: ResourceOptions = ResourceOptions()
    ) {
        self.scheme = scheme
        self.domain = domain
        self.version = version
        self.defaultHeaders = defaultHeaders
        self.defaultParams = defaultParams
        self.transport = transport ?? URLSessionTransport()
        self.options = options
        let own = RequestLimiter(maxConcurrentRequests: maxConcurrentRequests, rateLimits: rateLimits)
        self.limiter = limiter ?? own
        if limiter != nil, !rateLimits.isEmpty || maxConcurrentRequests != nil {
            rateLimitProblem = .invalidValue(
                part: "limiter",
                reason:
                    "a shared limiter was given together with rateLimits or maxConcurrentRequests; give the limits to the RequestLimiter"
            )
        } else {
            rateLimitProblem = self.limiter.problem
        }
        self.retryTokens = RetryTokens(options.retryBudget)
        self.pipeline = Pipeline(resource: options)
        self.base = Result { () throws(NetLayerError) in
            try URLBuilder.base(scheme: scheme, domain: domain, version: version)
        }
        self.defaultHeaderFields = Result { () throws(NetLayerError) in
            try HeaderFields(merging: defaultHeaders)
        }
        self.defaultParamValues = mergeParams(defaultParams)
    }

    /// `scheme://domain[/version]`, or the error every call of this resource will throw.
    public var baseURL: String {
        get throws { try base.get() }
    }
}
