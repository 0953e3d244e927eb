import Foundation
import NetLayer

extension Resilience {
    /// One line per attempt: method, path template, attempt, status and the time until the
    /// response head. Nothing else: the URL (its path parts and query), the headers and the bodies
    /// may all hold personal data or secrets.
    struct AccessLog: Interceptor {
        let write: @Sendable (String) -> Void

        func intercept(
            _ request: TransportRequest, context: InterceptorContext,
            next: @Sendable (TransportRequest) async throws -> TransportResponse
        ) async throws -> TransportResponse {
            let started = ContinuousClock.now
            let call = "\(request.method) \(context.pathTemplate) #\(context.attempt)"
            do {
                let response = try await next(request)
                write("\(call) → \(response.head.statusCode) in \(Self.milliseconds(since: started))")
                return response
            } catch {
                // The code only: an error's message names the URL.
                let code = (error as? NetLayerError)?.code.description ?? "\(type(of: error))"
                write("\(call) → \(code) after \(Self.milliseconds(since: started))")
                throw error
            }
        }

        private static func milliseconds(since start: ContinuousClock.Instant) -> String {
            let elapsed = (ContinuousClock.now - start).components
            return "\(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000) ms"
        }
    }
}
