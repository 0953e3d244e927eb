import Foundation

/// One section of a service's API, such as `/books` or `/users/:id`.
///
/// Subclass it per section and write one method per call:
/// ```swift
/// final class BooksTarget: Target, @unchecked Sendable {
///     func list(page: Int) async throws -> [Book] {
///         try await makeExecutor(method: .get, params: ["page": page]).execute(model: [Book].self)
///     }
/// }
/// ```
/// Sendable without compiler checking, because the compiler cannot check an `open` class; every
/// stored property is a `let` of a `Sendable` type. Subclasses restate the conformance (as in the
/// example above) as their promise to keep to that.
open class Target: @unchecked Sendable {
    /// The service this target belongs to.
    public let resource: Resource
    /// The path template, joined after the resource's domain and version: `/books/:id`.
    public let path: String
    /// Headers of this target; they override the resource's per name.
    public let headers: [String: String]
    /// Params of this target; they override the resource's per top-level key.
    public let params: Params
    /// The resource's and this target's headers, params and plain URL, worked out once.
    let defaults: TargetDefaults

    /// Creates a target.
    /// - Parameters:
    ///   - resource: The service.
    ///   - path: Path template with optional `:name` / `{name}` tokens and an optional `?query`.
    ///   - headers: Default none.
    ///   - params: Default none.
    public required init(
        resource: Resource, path: String, headers: [String: String] = [:], params: Params = [:]
    ) {
        self.resource = resource
        self.path = path
        self.headers = headers
        self.params = params
        self.defaults = TargetDefaults(resource: resource, path: path, headers: headers, params: params)
    }

    /// A reason every call of this target fails (a ``ResourceTarget`` given the wrong resource).
    var problem: NetLayerError? { nil }

    /// Turns this target's unacceptable responses into the service's own error; it wins over the
    /// resource's ``ResourceOptions/errorMapping``. Default `nil`: the resource's. Override it in a
    /// subclass: `override var errorMapping: ErrorMapping? { .decoding(UploadError.self) }`.
    open var errorMapping: ErrorMapping? { nil }

    /// Interceptors around every call of this target, inside the resource's
    /// (``ResourceOptions/interceptors``) and outside the call's. Default none. Override it in a
    /// subclass: `override var interceptors: [any Interceptor] { [Timing()] }`.
    open var interceptors: [any Interceptor] { [] }

    /// When this target's failed calls are sent again; it wins over the resource's
    /// ``ResourceOptions/retryPolicy``, and a call's ``Executor/retry(_:)`` wins over it. Default
    /// `nil`: the resource's.
    open var retryPolicy: RetryPolicy? { nil }

    /// Which responses of this target count as success; it wins over the resource's
    /// ``ResourceOptions/validation``, and a call's ``Executor/validate(_:)`` wins over it.
    /// Default `nil`: the resource's.
    open var validation: Validation? { nil }

    /// How this target's calls use the resource's ``ResourceOptions/cache``; a call's
    /// ``Executor/cachePolicy(_:)`` wins over it. Default `nil`: ``CachePolicy/standard``. Override
    /// it in a subclass: `override var cachePolicy: CachePolicy? { .bypass }`.
    open var cachePolicy: CachePolicy? { nil }

    /// Describes one call. Nothing is validated or sent until an `execute` or `response` method of
    /// the returned executor is awaited; every mistake is thrown from there as a ``NetLayerError``.
    /// - Parameters:
    ///   - method: Default `.get`.
    ///   - subpath: Appended to the target's path with one `/`, may hold tokens. Default none. An
    ///     absolute URL (`https://…`, `//host/…`) is refused with ``NetLayerError/Code/invalidURL``;
    ///     follow one with ``makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``.
    ///   - pathParts: Values for the path tokens, keyed `"id"` or `":id"`. Default none.
    ///   - headers: Headers of this call; they override the target's and resource's per name.
    ///   - params: Params of this call; they override the target's and resource's per key.
    ///   - body: An explicit body; params then go to the query. Default none.
    ///   - files: Files for a multipart body, keyed by field name. Default none.
    ///   - placement: Where params go. Default ``ParamPlacement/automatic``.
    ///   - timeout: Idle timeout of this call. Default: the resource's.
    ///   - resourceTimeout: Total deadline of this call. Default: the resource's.
    ///   - redirects: How this call follows redirects. Default: the resource's
    ///     (``ResourceOptions/redirects``).
    public func makeExecutor(
        method: HTTPMethod = .get,
        subpath: String = "",
        pathParts: [String: any ParamConvertible] = [:],
        headers: [String: String] = [:],
        params: Params = [:],
        body: Body? = nil,
        files: [String: FilePart] = [:],
        placement: ParamPlacement = .automatic,
        timeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        redirects: RedirectPolicy? = nil
    ) -> Executor {
        Executor(
            spec: CallSpec(
                resource: resource, method: method, path: URLBuilder.join(path, subpath), subpath: subpath,
                pathParts: pathParts, defaults: defaults, targetProblem: problem, headers: headers,
                params: params, body: body, files: files, placement: placement,
                timeout: timeout ?? resource.options.timeout, deadline: resourceTimeout),
            options: CallOptions(
                redirectPolicy: redirects ?? resource.options.redirects,
                errorMapping: errorMapping ?? resource.options.errorMapping, interceptors: interceptors,
                retryPolicy: retryPolicy, validation: validation, cachePolicy: cachePolicy))
    }
}
