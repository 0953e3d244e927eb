import CoreMetrics
import Foundation
import Logging
import NetLayer
import NetLayerObservability
import Tracing

/// The code of Docs/Observability.md's "The companion package", compiled here so the document
/// cannot rot (``ObservabilityDocsTests`` checks that every ```swift block of that part appears in
/// this file, line for line, and runs these functions). Nested in an enum so the document can use
/// plain names.
enum ObservabilityExamples {
    // MARK: Traces and metrics

    static func install() -> Resource {
        let telemetry = TelemetryObserver()
        let api = Resource(domain: "api.example.com", options: ResourceOptions(observer: telemetry))
        return api
    }

    static func onlyThisCall(_ books: Target) async throws -> Data {
        let tracesOnly = TelemetryObserver(configuration: .init(metrics: false))
        return try await books.makeExecutor().observer(tracesOnly).execute()
    }

    static func configured(tracer: any Tracer, factory: any MetricsFactory) -> TelemetryObserver {
        TelemetryObserver(
            tracer: tracer,  // default: InstrumentationSystem.tracer
            metricsFactory: factory,  // default: MetricsSystem.factory
            configuration: .init(
                callSpans: false,  // attempts hang from the caller's span
                pathTemplates: true,  // "GET /books/:id" rather than "GET"
                knownMethods: HTTPClientConventions.standardMethods.union(["PROPFIND"])))
    }

    // MARK: Logging

    static func logging() -> ResourceOptions {
        let logger = Logger(label: "com.example.bookstore")
        let options = ResourceOptions(debug: true, log: .logger(logger))
        return options
    }

    static func quieterRetries(_ logger: Logger) -> LogSink {
        .logger(logger, levels: .init(exchange: .trace, retry: .debug))
    }
}
