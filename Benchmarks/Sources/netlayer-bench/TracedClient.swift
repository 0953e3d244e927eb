import Foundation
import InMemoryTracing
import NetLayer
import NetLayerObservability

/// Issue 29's contender (`BENCH_THROUGHPUT_CONTENDER=tracing-noop|tracing-inmemory`): the same
/// NetLayer call as ``NetLayerClient`` with the observability package's `TelemetryObserver`
/// installed — spans and metrics on — over the process's default no-op tracer and metrics, or over
/// swift-distributed-tracing's in-memory tracer (every finished span kept, as a test would).
final class TracedNetLayerClient: Sendable {
    let target: BooksTarget

    init(port: Int, inMemory: Bool) {
        let observer =
            inMemory ? TelemetryObserver(tracer: InMemoryTracer()) : TelemetryObserver()
        let api = BenchAPI(port: port, options: ResourceOptions { $0.observer = observer })
        target = api.bookList
    }

    func books() async throws -> [Book] { try await target.list() }
}
