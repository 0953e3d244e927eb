import Foundation

extension Target {
    /// Describes a call to an absolute URL of this target's resource: the `next` page a server
    /// named in a `Link` header, a `Location` it returned.
    ///
    /// The call is made as any other of this target: the resource's and target's headers, the rate
    /// limits, timeouts, redirects, validation, error mapping and debug settings all apply. Only the
    /// address differs, and it must be on the resource's origin:
    /// - scheme, host and port must equal the resource's (else ``NetLayerError/Code/invalidURL``
    ///   naming both origins, and nothing is sent: credentials never go to another host);
    /// - the fragment is dropped; user info is refused;
    /// - a URL that carries a query already carries its params: the resource's and the target's
    ///   are not added again. This call's own `params` are appended (or go to the body, as usual).
    ///   A URL without a query gets every level's params as any call does.
    ///
    /// ```swift
    /// var page = try await repos.makeExecutor(params: ["per_page": 50]).response(model: [Repo].self)
    /// while let next = page.link("next") {
    ///     page = try await repos.makeExecutor(url: next).response(model: [Repo].self)
    /// }
    /// ```
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL on the resource's origin.
    ///   - method: Default `.get`.
    ///   - headers: Headers of this call; they override the target's and resource's per name.
    ///   - params: Params of this call. Default none.
    ///   - body: An explicit body. Default none.
    ///   - files: Files for a multipart body. Default none.
    ///   - placement: Where params go. Default ``ParamPlacement/automatic``.
    ///   - timeout: Idle timeout of this call. Default: the resource's.
    ///   - resourceTimeout: Total deadline of this call. Default: the resource's.
    ///   - redirects: How this call follows redirects. Default: the resource's.
    public func makeExecutor(
        url: URL,
        method: HTTPMethod = .get,
        headers: [String: String] = [:],
        params: Params = [:],
        body: Body? = nil,
        files: [String: FilePart] = [:],
        placement: ParamPlacement = .automatic,
        timeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        redirects: RedirectPolicy? = nil
    ) -> Executor {
        var executor = makeExecutor(
            method: method, headers: headers, params: params, body: body, files: files, placement: placement,
            timeout: timeout, resourceTimeout: resourceTimeout, redirects: redirects)
        executor.spec.absoluteURL = url
        return executor
    }

}

extension Resource {
    /// Describes a GET of an absolute URL on this resource's origin, with the resource's headers,
    /// params rule, limits and options (see ``Target/makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``,
    /// which also applies a target's headers and error mapping).
    /// - Parameter url: An absolute `http` or `https` URL with this resource's scheme, host and port.
    /// - Returns: The call; nothing is sent until it is awaited. A URL of another origin throws
    ///   ``NetLayerError/Code/invalidURL`` from there.
    public func follow(_ url: URL) -> Executor {
        Target(resource: self, path: "").makeExecutor(url: url)
    }
}
