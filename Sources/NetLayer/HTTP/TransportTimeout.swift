extension NetLayerError {
    /// The error a custom ``Transport`` throws when a limit of ``TransportContext/timeouts``
    /// elapsed, as ``URLSessionTransport`` does: code ``Code/timedOut``, message `timed out: <reason>`
    /// (NetLayer adds the method and URL).
    /// - Parameter reason: What elapsed, for example `no data for 0.5 s (idle timeout)`.
    public static func timedOut(reason: String) -> NetLayerError {
        timedOut(reason)
    }
}
