/// A ``Target`` that knows its resource's own type, so its methods reach the service's properties
/// without a cast.
///
/// ```swift
/// final class ReposTarget: ResourceTarget<GitHubAPI>, @unchecked Sendable {
///     func list(org: String) async throws -> [Repo] {
///         try await makeExecutor(subpath: ":org/repos", pathParts: ["org": org],
///                                params: ["per_page": try api.pageSize]).execute()
///     }
/// }
///
/// // In GitHubAPI:
/// func repos() -> ReposTarget { ReposTarget(resource: self, path: "/orgs") }
/// ```
///
/// Creating it with a resource of another type does not compile: the inherited
/// `init(resource: Resource, …)` is unavailable, and ``init(resource:path:headers:params:)`` takes
/// an `API`. The one way around that, calling the required initializer through a `Target.Type`
/// value, gives a target whose ``api`` and every call throw ``NetLayerError/Code/invalidValue``
/// naming both types; nothing crashes and nothing is sent.
///
/// Sendable without compiler checking, as ``Target``; subclasses restate the conformance.
open class ResourceTarget<API: Resource>: Target, @unchecked Sendable {
    /// The resource as its own type; `nil` only after the unavailable initializer got another type.
    private let typedResource: API?

    /// Creates a target of `resource`.
    /// - Parameters:
    ///   - resource: The service, of this target's `API` type.
    ///   - path: Path template with optional `:name` / `{name}` tokens and an optional `?query`.
    ///   - headers: Default none.
    ///   - params: Default none.
    public init(resource: API, path: String, headers: [String: String] = [:], params: Params = [:]) {
        typedResource = resource
        super.init(resource: resource, path: path, headers: headers, params: params)
    }

    /// Unavailable: pass a resource of this target's `API` type to
    /// ``init(resource:path:headers:params:)``. Reached through a `Target.Type` value with another
    /// type, it makes ``api`` and every call throw ``NetLayerError/Code/invalidValue``.
    @available(*, unavailable, message: "pass a resource of the type this ResourceTarget is declared for")
    public required init(
        resource: Resource, path: String, headers: [String: String] = [:], params: Params = [:]
    ) {
        typedResource = resource as? API
        super.init(resource: resource, path: path, headers: headers, params: params)
    }

    /// The service, typed: `try api.pageSize`.
    /// - Throws: ``NetLayerError/Code/invalidValue`` only when the target was made, through a
    ///   `Target.Type` value, with a resource of another type.
    public var api: API {
        get throws(NetLayerError) {
            guard let typedResource else { throw mismatch }
            return typedResource
        }
    }

    override var problem: NetLayerError? { typedResource == nil ? mismatch : nil }

    private var mismatch: NetLayerError {
        .invalidValue(
            part: "resource",
            reason:
                "\(type(of: self)) needs a resource of type \(API.self) but was given one of type \(type(of: resource)); create it with init(resource:path:) and a resource of type \(API.self)"
        )
    }
}
