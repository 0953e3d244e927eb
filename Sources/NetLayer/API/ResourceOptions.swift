import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Settings of a ``Resource`` beyond its address.
///
/// Start from the defaults and set only what differs, in any order:
/// ```swift
/// let options = ResourceOptions {
///     $0.retryPolicy = .exponential(statusCodes: [502, 503])
///     $0.debug = true
/// }
/// ```
/// Every property, its type and default are listed in `Docs/Guide.md` ("Resource options"). The
/// memberwise ``init(encoder:decoder:paramStyle:bodyParams:validation:timeout:resourceTimeout:redirects:debug:log:redaction:errorMapping:interceptors:retryPolicy:retryBudget:authentication:maximumResponseSize:observer:cookieJar:cache:)``
/// works too, but takes its arguments in that fixed order.
public struct ResourceOptions: Sendable {
    /// Encodes ``Body/json(_:)`` bodies. Default ``ResourceOptions/defaultEncoder``.
    public var encoder: JSONEncoder
    /// Decodes models. Default `JSONDecoder()`.
    public var decoder: JSONDecoder
    /// How param values and names are spelled (array brackets, booleans, `nil`). Default
    /// ``ParamStyle/default``.
    public var paramStyle: ParamStyle
    /// Which body a POST, PUT or PATCH puts its params in when no body, no files, no
    /// `Content-Type` and no `placement:` decide it. Default ``BodyParamFormat/form``; a JSON API
    /// sets ``BodyParamFormat/json`` so `makeExecutor(method: .patch, params: […])` sends JSON.
    public var bodyParams: BodyParamFormat
    /// Which responses count as success. Default ``Validation/successfulStatusCodes``.
    public var validation: Validation
    /// Idle timeout: the longest time without any bytes arriving. Default `nil`: the session
    /// configuration's `timeoutIntervalForRequest` (60 s by default).
    public var timeout: Duration?
    /// Total deadline for a whole request, from send to last byte (over all redirects). Default
    /// `nil`: none. Zero or less makes every call throw ``NetLayerError/Code/invalidValue``; more
    /// than ``Timeouts/maximum`` is clamped to it (as for ``timeout``).
    public var resourceTimeout: Duration?
    /// How redirects are followed. Default ``RedirectPolicy/default``.
    public var redirects: RedirectPolicy
    /// Prints every request and response. Default `false`.
    public var debug: Bool
    /// Where debug lines go. Default ``LogSink/standardOutput``.
    public var log: LogSink
    /// Which header and param names debug output and `curl` commands hide. Default
    /// ``Redaction/default``.
    public var redaction: Redaction
    /// Turns unacceptable responses of every call into the service's own error (a target's
    /// ``Target/errorMapping`` wins). Default `nil`: ``NetLayerError`` is thrown.
    public var errorMapping: ErrorMapping?
    /// Interceptors around every call of the resource, outermost first (a target's and a call's
    /// run inside them). Default none.
    public var interceptors: [any Interceptor]
    /// When failed calls are sent again; a target's ``Target/retryPolicy`` or a call's
    /// ``Executor/retry(_:)`` wins. Default ``RetryPolicy/none``.
    public var retryPolicy: RetryPolicy
    /// How many retries the resource allows overall, so a failing service is not hammered.
    /// Default ``RetryBudget/default``.
    public var retryBudget: RetryBudget
    /// Adds credentials to every attempt and refreshes them once per 401 wave. Default `nil`.
    public var authentication: Authentication?
    /// The most body bytes a call that collects the whole body (`execute`, `response`) accepts:
    /// past it the transfer is cancelled and the call throws
    /// ``NetLayerError/Code/responseTooLarge``, so a server that sends an endless or huge body
    /// cannot fill the memory. Default ``defaultMaximumResponseSize`` (64 MiB). `nil` lifts the
    /// limit (as URLSession, which has none) and lets a call with nothing else to watch take the
    /// fastest path, one `data(for:)` call: with a limit, a collected call reads its body as it
    /// arrives, which on Linux URLSession costs about 3% of sequential small-GET throughput and
    /// nothing measurable at 32 concurrent calls (measured in `Benchmarks/`). Lift it only for
    /// servers you trust. A negative value
    /// counts as 0. `stream()`, `lines()`, `events()` and `download(to:)` are not affected: they
    /// never hold more than their buffer.
    public var maximumResponseSize: Int?
    /// Receives the events of every call of the resource (see ``CallObserver``); a call's
    /// ``Executor/observer(_:)`` wins. Default `nil`: nothing is observed, and nothing is
    /// allocated for observation.
    public var observer: (any CallObserver)?
    /// Keeps the cookies the service sets and sends them back (RFC 6265), on every hop of every
    /// call, over any transport; resources given the same jar share their cookies. Default `nil`:
    /// no cookie is kept or sent (but a `Cookie` header you set), and nothing is added to a call.
    public var cookieJar: CookieJar?
    /// Answers the resource's collected calls from a private HTTP cache (RFC 9111) while their
    /// responses are fresh, and revalidates them when they are not; see ``HTTPCache``. Resources
    /// given the same cache share it (entries stay partitioned by credential). Default `nil`:
    /// nothing is cached.
    public var cache: HTTPCache?

    /// The default ``maximumResponseSize``: 64 MiB, far above an API response and far below a
    /// device's memory. Larger bodies belong to `download(to:)` or `stream()`.
    public static let defaultMaximumResponseSize = 64 << 20

    /// Sorted keys, so the same value always encodes to the same bytes; slashes unescaped.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Creates options from the defaults, then lets `configure` change any of them, in any order:
    /// `ResourceOptions { $0.bodyParams = .json; $0.timeout = .seconds(10) }`. One expression, so it
    /// fits an argument: `super.init(…, options: ResourceOptions { $0.debug = true })`.
    /// - Parameter configure: Sets the properties that differ from their defaults (each default is
    ///   documented on its property). Called once, before this initializer returns.
    /// - Throws: Only what `configure` throws.
    public init(_ configure: (inout ResourceOptions) throws -> Void) rethrows {
        self.init()
        try configure(&self)
    }

    /// Creates options; every argument has the default documented on its property. The arguments
    /// must come in this order; ``init(_:)`` sets any of them in any order.
    public init(
        encoder: JSONEncoder = ResourceOptions.defaultEncoder,
        decoder: JSONDecoder = JSONDecoder(),
        paramStyle: ParamStyle = .default,
        bodyParams: BodyParamFormat = .form,
        validation: Validation = .successfulStatusCodes,
        timeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        redirects: RedirectPolicy = .default,
        debug: Bool = false,
        log: LogSink = .standardOutput,
        redaction: Redaction = .default,
        errorMapping: ErrorMapping? = nil,
        interceptors: [any Interceptor] = [],
        retryPolicy: RetryPolicy = .none,
        retryBudget: RetryBudget = .default,
        authentication: Authentication? = nil,
        maximumResponseSize: Int? = ResourceOptions.defaultMaximumResponseSize,
        observer: (any CallObserver)? = nil,
        cookieJar: CookieJar? = nil,
        cache: HTTPCache? = nil
    ) {
        self.encoder = encoder
        self.decoder = decoder
        self.paramStyle = paramStyle
        self.bodyParams = bodyParams
        self.validation = validation
        self.timeout = timeout
        self.resourceTimeout = resourceTimeout
        self.redirects = redirects
        self.debug = debug
        self.log = log
        self.redaction = redaction
        self.errorMapping = errorMapping
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.retryBudget = retryBudget
        self.authentication = authentication
        self.maximumResponseSize = maximumResponseSize
        self.observer = observer
        self.cookieJar = cookieJar
        self.cache = cache
    }

}
