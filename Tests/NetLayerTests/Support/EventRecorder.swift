import Foundation
import NetLayer

@testable import NetLayerTesting

/// A ``CallObserver`` that keeps every event it receives, as values and as one short line each
/// (without times, which vary), for exact comparisons:
///
/// ```
/// call GET /t/x            attempt 1 first GET /t/x      head 1 200
/// wait retryDelay before 2 end 1 setAside 503 -          call end 200 - attempts 2
/// ```
///
/// URLs in lines are shown without the server's address. `inject` names a header the recorder adds
/// to every attempt (`<name>: <call id>-<attempt>`).
final class EventRecorder: CallObserver {
    enum Event: Sendable {
        case callStarted(CallStarted)
        case admissionWaited(AdmissionWaited)
        case attemptStarted(AttemptStarted)
        case headReceived(HeadReceived)
        case attemptFinished(AttemptFinished)
        case callFinished(CallFinished)

        var callID: CallID {
            switch self {
            case .callStarted(let event): event.callID
            case .admissionWaited(let event): event.callID
            case .attemptStarted(let event): event.callID
            case .headReceived(let event): event.callID
            case .attemptFinished(let event): event.callID
            case .callFinished(let event): event.callID
            }
        }
    }

    private let base: String
    private let inject: String?
    private let events = TestLocked<[Event]>([])

    init(server: TestServer, inject: String? = nil) {
        base =
            server.baseURL.absoluteString.hasSuffix("/")
            ? String(server.baseURL.absoluteString.dropLast()) : server.baseURL.absoluteString
        self.inject = inject
    }

    var all: [Event] { events.withLock { $0 } }

    var lines: [String] { all.map(line) }

    var finished: [CallFinished] {
        all.compactMap { if case .callFinished(let event) = $0 { event } else { nil } }
    }

    var started: [AttemptStarted] {
        all.compactMap { if case .attemptStarted(let event) = $0 { event } else { nil } }
    }

    var heads: [HeadReceived] {
        all.compactMap { if case .headReceived(let event) = $0 { event } else { nil } }
    }

    var ended: [AttemptFinished] {
        all.compactMap { if case .attemptFinished(let event) = $0 { event } else { nil } }
    }

    var waits: [AdmissionWait] {
        all.compactMap { if case .admissionWaited(let event) = $0 { event.wait } else { nil } }
    }

    /// Waits until a call finished (events of a cancelled call may come from another thread).
    func waitForCallEnd(timeout: Duration = .seconds(5)) -> Bool {
        events.wait(timeout: timeout) { events in
            events.contains { if case .callFinished = $0 { true } else { false } }
        }
    }

    func reset() { events.withLock { $0 = [] } }

    private func add(_ event: Event) { events.withLock { $0.append(event) } }

    private func path(_ url: String) -> String {
        url.hasPrefix(base) ? String(url.dropFirst(base.count)) : url
    }

    func line(_ event: Event) -> String {
        switch event {
        case .callStarted(let event): "call \(event.method) \(event.pathTemplate)"
        case .admissionWaited(let event): "wait \(event.wait.kind) before \(event.wait.attempt)"
        case .attemptStarted(let event):
            "attempt \(event.number) \(event.reason) \(event.method) \(path(event.url))"
        case .headReceived(let event): "head \(event.attempt) \(event.statusCode)"
        case .attemptFinished(let event):
            "end \(event.attempt) \(event.end) \(event.statusCode.map(String.init) ?? "-") \(event.errorCode.map(String.init(describing:)) ?? "-")"
        case .callFinished(let event):
            "call end \(event.statusCode.map(String.init) ?? "-") \(event.errorCode.map(String.init(describing:)) ?? "-") attempts \(event.attempts)"
        }
    }

    func callStarted(_ event: CallStarted) -> (any CallObserver)? {
        add(.callStarted(event))
        return self
    }

    func admissionWaited(_ event: AdmissionWaited) { add(.admissionWaited(event)) }

    func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) {
        add(.attemptStarted(event))
        if let inject { try? headers.set("\(event.callID.rawValue)-\(event.number)", for: inject) }
    }

    func headReceived(_ event: HeadReceived) { add(.headReceived(event)) }

    func attemptFinished(_ event: AttemptFinished) { add(.attemptFinished(event)) }

    func callFinished(_ event: CallFinished) { add(.callFinished(event)) }
}
