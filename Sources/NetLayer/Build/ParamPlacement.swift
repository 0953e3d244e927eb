/// Where a call's params go, when the method and headers alone should not decide (the
/// `placement:` argument of ``Target/makeExecutor(method:subpath:pathParts:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``).
public enum ParamPlacement: Sendable, Hashable {
    /// The placement table of the design: query for GET/HEAD/DELETE/OPTIONS; for POST/PUT/PATCH a
    /// JSON body when the merged `Content-Type` is JSON, a form body when it is a form, else
    /// ``ResourceOptions/bodyParams`` (a form by default); multipart when files are given. The
    /// default.
    case automatic
    /// Always in the query string.
    case query
    /// A `application/x-www-form-urlencoded` body (query for methods that cannot carry a body).
    case form
    /// A JSON object body.
    case json
    /// A `multipart/form-data` body even without files.
    case multipart
}

/// Which body a POST, PUT or PATCH puts its params in when no body, no files and no
/// `Content-Type` decide it (``ResourceOptions/bodyParams``).
public enum BodyParamFormat: Sendable, Hashable {
    /// `application/x-www-form-urlencoded`, as the design's placement table says. The default.
    case form
    /// A JSON object with `Content-Type: application/json`, for JSON APIs.
    case json
}
