import Foundation
import NetLayer

/// The code of Docs/Observability.md, compiled here so the page cannot rot (``DocsExamplesTests``
/// checks that every ```swift block of the page appears in this file, line for line).
enum ObservabilityExamples {
    struct Order: Decodable, Sendable { var id: Int }

    final class ShopAPI: Resource, @unchecked Sendable {
        init(domain: String = "shop.example.com", secure: Bool = true, options: ResourceOptions) {
            super.init(protocol: secure ? .https : .http, domain: domain, options: options)
        }

        func orders() -> OrdersTarget { OrdersTarget(resource: self, path: "/orders") }
    }

    final class OrdersTarget: Target, @unchecked Sendable {}

    // MARK: An observer

    struct SlowCallLog: CallObserver {
        let threshold: Duration

        func callFinished(_ event: CallFinished) {
            guard event.duration > threshold else { return }
            print("slow call \(event.callID): \(event.metrics)")
        }
    }

    static func install() -> ShopAPI {
        let api = ShopAPI(options: ResourceOptions(observer: SlowCallLog(threshold: .seconds(1))))
        return api
    }

    static func placeOrder(_ api: ShopAPI, audit: some CallObserver) async throws {
        try await api.orders().makeExecutor(method: .post)
            .observer(audit)  // this call only; .observer(nil) turns the resource's off
            .execute()
    }

    // MARK: One object per call

    struct AttemptLog: CallObserver {
        func callStarted(_ event: CallStarted) -> (any CallObserver)? {
            CallLog(name: "\(event.method) \(event.pathTemplate)")
        }
    }

    struct CallLog: CallObserver {
        let name: String

        func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) {
            print("\(name) #\(event.number) \(event.reason) → \(event.url)")
        }

        func attemptFinished(_ event: AttemptFinished) {
            let status = event.statusCode.map(String.init) ?? "no answer"
            print("\(name) #\(event.attempt) \(status), \(event.end) after \(event.duration)")
        }
    }

    struct Sampled: CallObserver {
        let observer: any CallObserver
        let rate: Double

        func callStarted(_ event: CallStarted) -> (any CallObserver)? {
            Double.random(in: 0..<1) < rate ? observer.callStarted(event) : nil
        }
    }

    // MARK: Trace context

    struct TraceContext: CallObserver {
        let traceID: String

        func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) {
            let spanID = String(UInt64.random(in: 1...UInt64.max), radix: 16)
            let padded = String(repeating: "0", count: 16 - spanID.count) + spanID
            try? headers.set("00-\(traceID)-\(padded)-01", for: "traceparent")
        }
    }

    // MARK: Metrics without an observer

    static func whereDidTheTimeGo(_ api: ShopAPI) async throws {
        let response = try await api.orders().makeExecutor().response(model: [Order].self)
        let metrics = response.metrics
        print("admission \(metrics.admissionTime), first byte \(metrics.timeToFirstByte ?? .zero)")
        for attempt in metrics.attempts {
            print("#\(attempt.number) \(attempt.reason): \(attempt.statusCode ?? 0), \(attempt.duration)")
        }
    }

    static func whatFailed(_ api: ShopAPI) async {
        do {
            try await api.orders().makeExecutor().execute()
        } catch let error as NetLayerError {
            let attempts = error.metrics?.attempts ?? []
            print("\(error.code) after \(attempts.count) attempts: \(attempts.map(\.reason))")
        } catch {
            print(error)
        }
    }
}
