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
/// A resource is immutable after `init`. It owns one transport (one `URLSession`) and one rate limiter,
/// shared by every request made through its targets.
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
    /// The limits every request of this resource waits for.
    public let rateLimits: [RateLimit]
    /// What sends requests; a ``URLSessionTransport`` unless one was given.
    public let transport: any Transport
    /// Encoders, validation, timeouts and debug settings.
    public let options: ResourceOptions

    let rateLimiter: RateLimiter
    /// The first invalid rate limit, thrown by every call (the `init` itself never throws).
    let rateLimitProblem: NetLayerError?
    let base: Result<String, NetLayerError>
    /// `defaultHeaders` validated once; a bad one fails every call, before anything is sent.
    let defaultHeaderFields: Result<HeaderFields, NetLayerError>
    /// `defaultParams` converted once.
    let defaultParamValues: [String: ParamValue]

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
    ///   - transport: Default: a new ``URLSessionTransport`` with `URLSessionConfiguration.default`,
    ///     owned by this resource.
    ///   - options: Default ``ResourceOptions/init(encoder:decoder:paramStyle:bodyParams:validation:timeout:resourceTimeout:redirects:debug:log:redaction:errorMapping:)``.
    public init(
        protocol scheme: URLScheme = .https,
        domain: String,
        version: String? = nil,
        defaultHeaders: [String: String] = [:],
        defaultParams: Params = [:],
        rateLimits: [RateLimit] = [],
        transport: (any Transport)? = nil,
        options: ResourceOptions = ResourceOptions()
    ) {
        self.scheme = scheme
        self.domain = domain
        self.version = version
        self.defaultHeaders = defaultHeaders
        self.defaultParams = defaultParams
        self.rateLimits = rateLimits
        self.transport = transport ?? URLSessionTransport()
        self.options = options
        self.rateLimiter = RateLimiter(limits: rateLimits)
        self.rateLimitProblem =
            rateLimits.enumerated().lazy.compactMap { index, limit in
                limit.problem.map { NetLayerError.invalidValue(part: "rateLimits[\(index)]", reason: $0) }
            }.first
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
