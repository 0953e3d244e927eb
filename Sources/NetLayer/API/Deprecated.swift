import Foundation

// The former spellings of public API, kept so existing callers compile (with a warning that
// names the new spelling). Nothing else lives here.

extension ResourceOptions {
    /// The former name of ``paramStyle``.
    @available(*, deprecated, renamed: "paramStyle")
    public var encoding: ParamStyle {
        get { paramStyle }
        set { paramStyle = newValue }
    }

    /// The former spelling of ``init(encoder:decoder:paramStyle:bodyParams:validation:timeout:resourceTimeout:redirects:debug:log:redaction:errorMapping:interceptors:retryPolicy:retryBudget:authentication:maximumResponseSize:observer:cookieJar:cache:)``,
    /// with `encoding:` for `paramStyle:`.
    @available(*, deprecated, message: "`encoding:` is now `paramStyle:`")
    public init(
        encoder: JSONEncoder = ResourceOptions.defaultEncoder,
        decoder: JSONDecoder = JSONDecoder(),
        encoding: ParamStyle,
        validation: Validation = .successfulStatusCodes,
        timeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        redirects: RedirectPolicy = .default,
        debug: Bool = false,
        log: LogSink = .standardOutput,
        redaction: Redaction = .default
    ) {
        self.init(
            encoder: encoder, decoder: decoder, paramStyle: encoding, validation: validation,
            timeout: timeout,
            resourceTimeout: resourceTimeout, redirects: redirects, debug: debug, log: log,
            redaction: redaction)
    }
}

extension Target {
    /// The former spelling of ``makeExecutor(method:subpath:pathParts:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``,
    /// with `encoding:` for `placement:`.
    @available(*, deprecated, message: "`encoding:` is now `placement:`")
    public func makeExecutor(
        method: HTTPMethod = .get,
        subpath: String = "",
        pathParts: [String: any ParamConvertible] = [:],
        headers: [String: String] = [:],
        params: Params = [:],
        body: Body? = nil,
        files: [String: FilePart] = [:],
        encoding: ParamPlacement,
        timeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        redirects: RedirectPolicy? = nil
    ) -> Executor {
        makeExecutor(
            method: method, subpath: subpath, pathParts: pathParts, headers: headers, params: params,
            body: body,
            files: files, placement: encoding, timeout: timeout, resourceTimeout: resourceTimeout,
            redirects: redirects)
    }
}

/// The former name of ``ParamStyle``.
@available(*, deprecated, renamed: "ParamStyle")
public typealias EncodingOptions = ParamStyle

/// The former name of ``ParamPlacement``.
@available(*, deprecated, renamed: "ParamPlacement")
public typealias ParamEncoding = ParamPlacement
