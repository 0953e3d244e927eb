import Foundation

/// Where debug lines go.
public struct LogSink: Sendable {
    private let write: @Sendable (String) -> Void

    /// A sink calling `write` once per line (without a trailing newline).
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Standard output, one `print` per line. The default, so `debug: true` works with no set-up.
    public static let standardOutput = LogSink { line in print(line) }

    /// Discards everything.
    public static let discard = LogSink { _ in }

    func callAsFunction(_ line: String) { write(line) }

    /// Serialises blocks from concurrent requests so their lines never interleave.
    private static let blockLock = LockedValue(())

    /// Writes several lines with no other block's lines between them. Each is one physical line
    /// that a terminal only displays: a CR or LF inside (from a body or a URL a server chose) is
    /// written as `\r` / `\n`, and other controls, bidi overrides and separators as `\u{1B}` (see
    /// ``PrintableText``). Lines are redacted before they get here.
    func block(_ lines: [String]) {
        let safe = lines.map { PrintableText.escaped($0) }
        Self.blockLock.withLock { _ in safe.forEach(write) }
    }
}
