import Foundation

/// What every call of a target starts from, worked out once when the target is made: the
/// resource's and the target's headers and params merged, and the URL of a call that adds no
/// sub-path, path parts or params of its own.
///
/// Nothing here can go stale: every input is a `let` of the target or of its resource, which are
/// immutable. A call that adds something merges only its own level into these; a call that adds
/// nothing (`makeExecutor(method: .get)` on a target whose path has no tokens) sends the URL made
/// here. Each value that can fail keeps its error, thrown by every call at the same point as when
/// the call works it out itself, so a bad target fails its calls exactly as before and nothing is
/// sent.
final class TargetDefaults: Sendable {
    /// The target's own header fields, validated, or why they are invalid.
    let targetHeaders: Result<HeaderFields, NetLayerError>
    /// The resource's and the target's headers merged (the target's win per name); the resource's
    /// error first, then the target's.
    let headers: Result<HeaderFields, NetLayerError>
    /// The resource's and the target's params merged (the target's win per top-level key), sorted
    /// by key in byte order.
    let params: FormEncoder.Entries
    /// The target's path, checked and filled with no path parts: the path of a call that adds no
    /// sub-path or path parts. A path with tokens fails here (its calls fill it themselves).
    let plainPath: Result<String, NetLayerError>
    /// The URL of such a call whose params, if any, do not go in the query; `nil` when the path or
    /// the resource's base is unusable (every call then fails before its URL is made).
    let plainURL: Result<URL, NetLayerError>?
    /// The URL of such a call with ``params`` as its query (the same as ``plainURL`` when there
    /// are none).
    let plainQueryURL: Result<URL, NetLayerError>?
    /// The URL and header fields of a call that adds nothing of its own and sends its params in
    /// the query (GET, HEAD, DELETE, OPTIONS, TRACE, CONNECT): everything of its request but the
    /// method, known to be valid. `nil` when any part of the target fails, or when a
    /// `Content-Type` at some level makes the call decide where its params go.
    let queryCall: (url: URL, headers: HeaderFields)?

    init(resource: Resource, path: String, headers: [String: String], params: Params) {
        let targetHeaders = Result { () throws(NetLayerError) in try HeaderFields(merging: headers) }
        self.targetHeaders = targetHeaders
        self.headers = Result { () throws(NetLayerError) in
            var merged = try resource.defaultHeaderFields.get()
            merged.merge(try targetHeaders.get())
            return merged
        }
        let merged = FormEncoder.merged(
            defaults: resource.defaultParamValues, target: mergeParams(params), call: [:])
        self.params = merged
        let plainPath = Result { () throws(NetLayerError) in
            try FollowURL.refuseAbsolute(path, part: "path")
            return try PathTemplate.fill(path, with: [:])
        }
        self.plainPath = plainPath
        guard case .success(let filled) = plainPath, case .success(let base) = resource.base else {
            plainURL = nil
            plainQueryURL = nil
            queryCall = nil
            return
        }
        let plainURL = Result { () throws(NetLayerError) in
            try URLBuilder.url(base: base, path: filled, query: "", cache: resource.parsedURLs)
        }
        self.plainURL = plainURL
        // Checked before anything encodes them: params nested past `ParamCheck.maximumDepth` would
        // overflow the stack of the (recursive) encoder, and non-finite numbers are refused anyway.
        let checked = Result { () throws(NetLayerError) in try ParamCheck.numbers(in: merged) }
        self.plainQueryURL =
            FormEncoder.hasValues(merged)
            ? Result { () throws(NetLayerError) in
                try checked.get()
                return try URLBuilder.url(
                    base: base, path: filled, params: merged,
                    form: FormEncoder(options: resource.options.paramStyle), cache: resource.parsedURLs)
            } : plainURL
        if case .success(let url)? = plainQueryURL, case .success(let fields) = self.headers,
            fields["Content-Type"] == nil, case .success = checked
        {
            queryCall = (url, fields)
        } else {
            queryCall = nil
        }
    }
}
