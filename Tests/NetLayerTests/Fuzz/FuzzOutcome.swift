import Foundation
import NetLayer

/// One property a case broke. `kind` is short and stable (it groups failures and guides shrinking:
/// a smaller case counts only if it still breaks the same kind); `detail` says exactly what differed.
struct FuzzProblem: Sendable, CustomStringConvertible {
    var kind: String
    var detail: String

    init(_ kind: String, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    var description: String { "[\(kind)] \(detail)" }
}

/// How a call ended.
enum FuzzOutcome: Sendable {
    /// The call returned this body.
    case returned([UInt8])
    /// The call threw a `NetLayerError`.
    case threw(NetLayerError.Code, String)
    /// The call threw something else (never allowed: every method throws only `NetLayerError`).
    case threwOther(String)
    /// The call did not end within the fuzzer's deadline.
    case hung(seconds: Int)

    /// The problems of this outcome for a case: a refused input must throw the code DESIGN names,
    /// an accepted one must succeed.
    func problems(for fuzzCase: FuzzCase) -> [FuzzProblem] {
        let refusals = FuzzRefusal.all(in: fuzzCase)
        if let refusal = refusals.sorted(by: { $0.rawValue < $1.rawValue }).first {
            let kind = "refused input (\(refusal.rawValue))"
            switch self {
            case .threw(let code, _) where code == refusal.code:
                return []
            case .threw(let code, let message):
                return [
                    FuzzProblem(
                        kind + ": wrong error",
                        "expected NetLayerError .\(refusal.code), got .\(code): \(message)")
                ]
            case .returned:
                return [
                    FuzzProblem(
                        kind + ": not refused", "expected NetLayerError .\(refusal.code), the call succeeded")
                ]
            case .threwOther(let text):
                return [
                    FuzzProblem(
                        kind + ": not a NetLayerError", "expected NetLayerError .\(refusal.code), got \(text)"
                    )
                ]
            case .hung(let seconds):
                return [FuzzProblem("hang", "no answer within \(seconds) s")]
            }
        }
        switch self {
        case .returned:
            return []
        case .threw(let code, let message):
            return [FuzzProblem("accepted input failed: .\(code)", message)]
        case .threwOther(let text):
            return [FuzzProblem("accepted input failed: not a NetLayerError", text)]
        case .hung(let seconds):
            return [FuzzProblem("hang", "no answer within \(seconds) s")]
        }
    }
}

/// Runs `operation` but gives up waiting after `seconds` (the operation is then cancelled and left
/// to finish on its own), so a hanging call is reported instead of hanging the run.
func fuzzWithDeadline(
    seconds: Int, _ operation: @escaping @Sendable () async -> FuzzOutcome
) async -> FuzzOutcome {
    let race = FuzzRace()
    return await withCheckedContinuation { continuation in
        race.install(continuation)
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            if !Task.isCancelled { race.finish(.hung(seconds: seconds)) }
        }
        let work = Task {
            let outcome = await operation()
            race.finish(outcome)
            timer.cancel()
        }
        race.onTimeout { work.cancel() }
    }
}

/// The first result wins; later ones are ignored.
private final class FuzzRace: @unchecked Sendable {  // state guarded by `lock`
    private let lock = FuzzLock()
    private var continuation: CheckedContinuation<FuzzOutcome, Never>?
    private var timedOut = false
    private var cancelWork: (@Sendable () -> Void)?

    func install(_ continuation: CheckedContinuation<FuzzOutcome, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Cancels the work when the deadline decides the race (now, if it already did).
    func onTimeout(_ cancel: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            cancelWork = cancel
            return timedOut
        }
        if now { cancel() }
    }

    func finish(_ outcome: FuzzOutcome) {
        var isTimeout = false
        if case .hung = outcome { isTimeout = true }
        let (winner, cancel) = lock.withLock {
            () -> (CheckedContinuation<FuzzOutcome, Never>?, (@Sendable () -> Void)?) in
            guard let continuation else { return (nil, nil) }
            self.continuation = nil
            timedOut = isTimeout
            return (continuation, isTimeout ? cancelWork : nil)
        }
        winner?.resume(returning: outcome)
        cancel?()
    }
}

/// A lock for the fuzzer's small shared states (`NSLock` with a closure API on every platform).
final class FuzzLock: @unchecked Sendable {  // NSLock is thread-safe
    private let lock = NSLock()

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
