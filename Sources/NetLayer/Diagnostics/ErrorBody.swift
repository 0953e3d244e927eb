import Foundation

extension NetLayerError {
    /// Decodes the body of an unacceptable response as the service's own error type:
    /// `try error.decodeBody(as: GitHubError.self)` on a 404 or 422.
    /// - Parameters:
    ///   - type: The error body's type.
    ///   - decoder: Default a plain `JSONDecoder`; pass your resource's (`api.options.decoder`) when
    ///     it has custom strategies.
    /// - Throws: ``NetLayerError/Code/decodingFailed`` when the error has no body or the body does
    ///   not decode (with the coding path and a preview, as for responses).
    public func decodeBody<Body: Decodable>(as type: Body.Type, using decoder: JSONDecoder = JSONDecoder())
        throws -> Body
    {
        let redactor = self.redactor ?? Redactor(redaction: .default)
        guard let body else {
            throw NetLayerError(.decodingFailed, "cannot decode \(Body.self): this \(code) error has no body")
                .redacted(by: redactor)
        }
        do {
            return try decoder.decode(Body.self, from: body)
        } catch {
            throw NetLayerError.decodingFailed(error, type: Body.self, body: body, redactor: redactor)
                .redacted(by: redactor)
        }
    }
}
