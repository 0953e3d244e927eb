import Foundation
import NetLayer
import Testing

/// Sends `executor` and expects a ``NetLayerError`` with `code`, then checks that the server saw
/// nothing on `path`.
func expectRefused(
    _ executor: Executor, code: NetLayerError.Code, server: TestServer, path: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> NetLayerError? {
    var caught: NetLayerError?
    do {
        try await executor.execute()
        Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
    } catch let error as NetLayerError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        caught = error
    } catch {
        Issue.record("expected a NetLayerError, got \(error)", sourceLocation: sourceLocation)
    }
    // Give a request that should not exist time to arrive before checking.
    try? await Task.sleep(for: .milliseconds(20))
    #expect(
        server.requests.filter { $0.path.hasPrefix(path) }.isEmpty, "something was sent",
        sourceLocation: sourceLocation)
    return caught
}
