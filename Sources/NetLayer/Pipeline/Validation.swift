import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which responses count as success: a status predicate, and optionally the content types a
/// body may have. Set it on ``ResourceOptions/validation``, override it per target
/// (``Target/validation``) or per call (``Executor/validate(_:)``).
public struct Validation: Sendable {
    private let accepts: @Sendable (ResponseHead) -> Bool
    /// Accepted media types (`application/json`, `image/*`), lower-cased; `nil` for any.
    private var mediaTypes: [String]? = nil
    /// Statuses a terminal handles itself (an event stream's 204, a resumed download's 416).
    private var alsoAccepted: Set<Int> = []

    /// A validation from a predicate over the Foundation response. A head that Foundation cannot
    /// express (from a custom transport) is rejected.
    public init(_ accepts: @escaping @Sendable (HTTPURLResponse) -> Bool) {
        self.accepts = { head in head.httpURLResponse.map(accepts) ?? false }
    }

    /// A validation from a predicate over the response head.
    public init(head accepts: @escaping @Sendable (ResponseHead) -> Bool) {
        self.accepts = accepts
    }

    /// Accepts exactly these status codes.
    public init(acceptableStatusCodes codes: some Sequence<Int>) {
        let set = Set(codes)
        self.accepts = { set.contains($0.statusCode) }
    }

    /// Accepts these status codes with a body of one of these media types.
    /// - Parameters:
    ///   - codes: The acceptable statuses.
    ///   - contentTypes: See ``acceptingContentTypes(_:)``.
    public init(acceptableStatusCodes codes: some Sequence<Int>, contentTypes: [String]) {
        self = Validation(acceptableStatusCodes: codes).acceptingContentTypes(contentTypes)
    }

    /// This validation, also requiring an accepted status's `Content-Type` to be one of `types`,
    /// compared without parameters and case-insensitively; `image/*` accepts any image type and
    /// `application/json` also accepts `+json` types. A response that cannot have a body (204, 205,
    /// 304, or `Content-Length: 0`) passes. Anything else throws
    /// ``NetLayerError/Code/unacceptableContentType`` with the body, before decoding.
    public func acceptingContentTypes(_ types: [String]) -> Validation {
        var copy = self
        copy.mediaTypes = types.map { MediaType.essence($0) }
        return copy
    }

    /// Status 200–299; anything else throws ``NetLayerError/Code/unacceptableStatus`` with the body.
    /// The default, because a 4xx or 5xx body is almost never the model the caller asked for.
    public static let successfulStatusCodes = Validation(head: { (200..<300).contains($0.statusCode) })

    /// Accepts every response; for callers that inspect ``Response/statusCode`` themselves.
    public static let none = Validation(head: { _ in true })

    func accepts(_ response: ResponseHead) -> Bool { verdict(response) == .accepted }

    enum Verdict: Equatable {
        case accepted
        case status
        /// The expected types, for the error.
        case contentType(String)
    }

    /// This validation, also accepting `status` whatever its content type.
    func alsoAccepting(_ status: Int) -> Validation {
        var copy = self
        copy.alsoAccepted.insert(status)
        return copy
    }

    func verdict(_ response: ResponseHead) -> Verdict {
        if !alsoAccepted.isEmpty && alsoAccepted.contains(response.statusCode) { return .accepted }
        guard accepts(response) else { return .status }
        guard let mediaTypes else { return .accepted }
        if [204, 205, 304].contains(response.statusCode) || response.contentLength == 0 { return .accepted }
        let type = response.headerFields["Content-Type"].map { MediaType.essence($0) }
        if let type, mediaTypes.contains(where: { MediaType.matches(type, range: $0) }) { return .accepted }
        return .contentType(mediaTypes.joined(separator: " or "))
    }
}
