import Foundation
import Hummingbird

/// A failure answered as JSON: `{"error": code, "message": message}` with the given status and headers.
struct APIError: HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(ErrorBody(error: code, message: message), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    static func badRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, code: "bad_request", message: message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, code: "not_found", message: message)
    }

    static func unprocessable(_ message: String) -> APIError {
        APIError(status: .unprocessableContent, code: "validation_failed", message: message)
    }

    static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(status: .unsupportedMediaType, code: "unsupported_media_type", message: message)
    }
}

enum JSONResponse {
    /// A JSON response with the wire encoder.
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try WireJSON.encoder.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Outermost middleware: whatever a route or Hummingbird throws leaves the server as the JSON error
/// shape, so clients never see an HTML or empty error body.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            let code = error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            throw APIError(
                status: error.status, code: code, message: error.body ?? error.status.reasonPhrase,
                headers: error.headers)
        } catch {
            context.logger.error("unexpected error: \(error)")
            throw APIError(status: .internalServerError, code: "internal_error", message: "the server failed")
        }
    }
}
