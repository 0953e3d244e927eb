import Logging
import NetLayer

extension LogSink {
    /// The swift-log levels NetLayer's debug lines are written at, by kind of line.
    ///
    /// The defaults follow swift-log's guidance for libraries (info or less severe; warning and
    /// above only for what cannot be reported otherwise): a failed attempt is thrown to the caller
    /// or retried, so it is not a warning.
    public struct LogLevels: Sendable, Hashable {
        /// Requests (`→`), responses (`←`, whatever their status), redirects followed (`↪`) and
        /// the header and body lines under them. Default `.debug`.
        public var exchange: Logger.Level
        /// Retries about to wait (`↻`). Default `.info`: a retry is a recoverable failure.
        public var retry: Logger.Level
        /// Attempts that failed without a response (`✕`: connection, timeout, cancellation).
        /// Default `.debug`: the call throws it, or retries.
        public var failure: Logger.Level

        /// Creates levels; every argument has the default documented on its property.
        public init(
            exchange: Logger.Level = .debug, retry: Logger.Level = .info, failure: Logger.Level = .debug
        ) {
            self.exchange = exchange
            self.retry = retry
            self.failure = failure
        }

        /// `.debug`, `.info` for retries, `.debug` for failures.
        public static let `default` = LogLevels()

        /// The level a NetLayer debug line is written at: read from the marker after the
        /// `[NetLayer]` prefix (`↻` a retry, `✕` a failure, anything else an exchange).
        public func level(forLine line: String) -> Logger.Level {
            LogLineKind.classify(line, levels: self).0
        }
    }

    /// A sink that writes NetLayer's debug lines to `logger`: each line one log message with
    /// source `NetLayer`, the `[NetLayer]` prefix left out, at the level its kind maps to.
    ///
    /// The lines are the ones NetLayer prints: redacted before they get here (no credential, no
    /// value of a secret header, param or path part) and escaped to one physical line each. Turn
    /// debug output on for the resource (`debug: true`) or for one call (`execute(debug: true)`):
    ///
    /// ```swift
    /// let logger = Logger(label: "com.example.bookstore")
    /// let options = ResourceOptions(debug: true, log: .logger(logger))
    /// ```
    /// - Parameters:
    ///   - logger: Where the lines go; its level filters them as usual.
    ///   - levels: The level of each kind of line. Default ``LogLevels/default``.
    public static func logger(_ logger: Logger, levels: LogLevels = .default) -> LogSink {
        LogSink { line in
            let (level, message) = LogLineKind.classify(line, levels: levels)
            logger.log(level: level, "\(message)", source: "NetLayer")
        }
    }
}

/// Reads the kind of a NetLayer debug line from its marker.
enum LogLineKind {
    static let prefix = "[NetLayer] "

    /// The level for `line` and the line without NetLayer's prefix.
    static func classify(_ line: String, levels: LogSink.LogLevels) -> (Logger.Level, String) {
        guard line.hasPrefix(prefix) else { return (levels.exchange, line) }
        let message = String(line.dropFirst(prefix.count))
        switch message.first {
        case "↻": return (levels.retry, message)
        case "✕": return (levels.failure, message)
        default: return (levels.exchange, message)
        }
    }
}
