import Foundation

/// What one call sends: the service, the method, the path and everything the call adds to its
/// target. ``Executor`` holds one; ``prepare()`` turns it into the request value, purely and on
/// the calling task.
struct CallSpec: Sendable {
    /// The service.
    let resource: Resource
    /// The method.
    let method: HTTPMethod
    /// The path template (target path plus sub-path), before tokens are filled.
    let path: String
    /// The call's sub-path as given (already joined into ``path``); kept to name it in errors.
    let subpath: String
    /// The values of the path's `:tokens`.
    let pathParts: [String: any ParamConvertible]
    /// The target's share of the call (its and the resource's headers, params and plain URL).
    let defaults: TargetDefaults
    /// Why every call of the target fails (see ``Target/problem``).
    let targetProblem: NetLayerError?
    /// The call's own headers (they win over the target's and the resource's per name).
    let headers: [String: String]
    /// The call's own params.
    let params: Params
    /// An explicit body.
    let body: Body?
    /// Files for a multipart body.
    let files: [String: FilePart]
    /// Where params go.
    let placement: ParamPlacement
    /// The idle timeout: the call's, else the resource's.
    let timeout: Duration?
    /// The call's own total deadline; `nil`: the resource's, unless ``inheritsDeadline`` is off.
    var deadline: Duration?
    /// Whether a call without a deadline of its own takes the resource's. An event stream, meant
    /// to stay open, does not.
    var inheritsDeadline = true
    /// The URL this call follows instead of the target's path (``Target/makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``).
    var absoluteURL: URL? = nil

    /// The total deadline this call runs under.
    var totalDeadline: Duration? {
        deadline ?? (inheritsDeadline ? resource.options.resourceTimeout : nil)
    }
}

extension CallSpec {
    /// The call that reads the next page `url` names (a `Link: rel="next"`): a GET of that URL as
    /// ``Target/makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``
    /// makes it, on this call's target, with this call's own headers, timeout and deadline. Its
    /// params, path parts, body and files are not sent again: the link carries what the server
    /// needs. `url` is checked against the resource's origin when the call is prepared.
    func following(_ url: URL) -> CallSpec {
        CallSpec(
            resource: resource, method: .get, path: path, subpath: "", pathParts: [:], defaults: defaults,
            targetProblem: targetProblem, headers: headers, params: [:], body: nil, files: [:],
            placement: .automatic, timeout: timeout, deadline: deadline, inheritsDeadline: inheritsDeadline,
            absoluteURL: url)
    }
}
