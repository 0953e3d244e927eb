import Foundation
import NetLayer

/// A target with no methods of its own: the fuzzer calls `makeExecutor` directly.
final class FuzzTarget: Target, @unchecked Sendable {}

/// Turns a case into the NetLayer call a caller would write, and runs it.
enum FuzzCall {
    /// Seconds a call may take before it counts as a hang (beyond NetLayer's own 10 s idle timeout).
    static let deadlineSeconds = 30

    /// The executor for `fuzzCase` on `resource`, at `<pathPrefix>/fuzz/<tag>/<template segment>`.
    static func executor(_ fuzzCase: FuzzCase, resource: Resource, pathPrefix: String, tag: String)
        -> Executor
    {
        let target = FuzzTarget(
            resource: resource, path: pathPrefix + "/fuzz/\(tag)/" + fuzzCase.templateSegment,
            headers: headers(fuzzCase, .target), params: params(fuzzCase.targetParams))
        let pathValue: any ParamConvertible
        switch fuzzCase.pathValue {
        case .string(let text): pathValue = text
        case .int(let number): pathValue = number
        case .bool(let flag): pathValue = flag
        }
        var files: [String: FilePart] = [:]
        for file in fuzzCase.files {
            files[file.field] = .data(Data(file.data), filename: file.filename, contentType: file.contentType)
        }
        let placement: ParamPlacement
        switch fuzzCase.encoding {
        case .automatic: placement = .automatic
        case .json: placement = .json
        case .multipart: placement = .multipart
        }
        return target.makeExecutor(
            method: HTTPMethod(rawValue: fuzzCase.method),
            pathParts: [fuzzCase.pathKeyWithColon ? ":id" : "id": pathValue],
            headers: headers(fuzzCase, .call),
            params: params(fuzzCase.params),
            body: fuzzCase.body.map { .data(Data($0.data), contentType: $0.contentType) },
            files: files,
            placement: placement,
            timeout: .seconds(10),
            resourceTimeout: .seconds(20))
    }

    /// The path before the template segment, as a server sees it.
    static func path(pathPrefix: String, tag: String) -> String {
        pathPrefix + "/fuzz/\(tag)/"
    }

    /// Sends the call and reports how it ended (never throws, never hangs the caller).
    static func send(_ executor: Executor) async -> FuzzOutcome {
        await fuzzWithDeadline(seconds: deadlineSeconds) {
            do {
                return .returned(Array(try await executor.execute()))
            } catch let error as NetLayerError {
                return .threw(error.code, error.description)
            } catch {
                return .threwOther("\(type(of: error)): \(error)")
            }
        }
    }

    private static func headers(_ fuzzCase: FuzzCase, _ level: FuzzLevel) -> [String: String] {
        var result: [String: String] = [:]
        for header in fuzzCase.headers(at: level) { result[header.name] = header.value }
        return result
    }

    private static func params(_ entries: [FuzzEntry]) -> Params {
        var result: Params = [:]
        for entry in entries { result[entry.key] = entry.value.convertible }
        return result
    }
}
