import Foundation
import NetLayer

/// A step of the story did not turn out as expected.
struct StoryFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Throws ``StoryFailure`` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw StoryFailure(message: message()) }
}

/// Runs `call`, which must fail with `NetLayerError.unacceptableStatus` and `status`; returns the error.
func expectStatus<T>(
    _ status: Int, _ what: String, isolation: isolated (any Actor)? = #isolation, _ call: () async throws -> T
) async throws -> NetLayerError {
    do {
        _ = try await call()
    } catch let error as NetLayerError {
        try expect(
            error.code == .unacceptableStatus && error.statusCode == status,
            "\(what): expected status \(status), got \(error)")
        return error
    }
    throw StoryFailure(message: "\(what): expected status \(status), but the call succeeded")
}

/// Runs `call`, which must fail with a `NetLayerError` of `code`; returns the error.
func expectFailure<T>(
    _ code: NetLayerError.Code, _ what: String, isolation: isolated (any Actor)? = #isolation,
    _ call: () async throws -> T
) async throws -> NetLayerError {
    do {
        _ = try await call()
    } catch let error as NetLayerError {
        try expect(error.code == code, "\(what): expected \(code), got \(error)")
        return error
    }
    throw StoryFailure(message: "\(what): expected \(code), but the call succeeded")
}

extension NetLayerError {
    /// The service's JSON error body, when there is one.
    var apiError: APIErrorBody? {
        body.flatMap { try? JSONDecoder().decode(APIErrorBody.self, from: $0) }
    }

    /// A response header, looked up case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Console output of the story.
enum Console {
    static func chapter(_ title: String, _ subtitle: String) {
        print("\n\n══ \(title): \(subtitle)")
    }

    static func step(_ number: Int, _ title: String) {
        print("\n── \(number). \(title)")
    }

    static func info(_ line: String) {
        print("   \(line)")
    }

    static func ok(_ line: String) {
        print("   ✓ \(line)")
    }

    static func fail(_ line: String) {
        fflush(nil)  // keep stdout and stderr in order when both go to one pipe
        FileHandle.standardError.write(Data("✗ \(line)\n".utf8))
    }
}

extension Duration {
    /// The duration in seconds.
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// `1.23 s`.
    var inSeconds: String { String(format: "%.2f s", secondsValue) }

    /// `1.3 ms`.
    var inMilliseconds: String { String(format: "%.1f ms", secondsValue * 1000) }
}
