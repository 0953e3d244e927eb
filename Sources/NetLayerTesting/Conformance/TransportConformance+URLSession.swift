extension TransportConformance {
    /// The scenarios `URLSessionTransport` (NetLayer's default transport) fails on this platform,
    /// each with the reason: limits of the platform's URLSession that NetLayer cannot work around.
    /// On Linux (FoundationNetworking) the list was checked with Swift 6.3.1 (see DESIGN §19); on
    /// Apple platforms it holds what follows from Foundation's API (`HTTPURLResponse` keeps one
    /// value per field name). A scenario listed in ``urlSessionCrashes`` stops the process instead
    /// of failing.
    public static let urlSessionLimitations: [String: String] = {
        #if canImport(FoundationNetworking)
            [
                "malformed.status-without-reason":
                    "FoundationNetworking rejects a status line without a reason phrase (`HTTP/1.1 200`): URLError -1 \"Failed writing header\"",
                "malformed.status-version-case":
                    "FoundationNetworking accepts `Http/1.1` as the version of a status line",
                "malformed.conflicting-content-length":
                    "FoundationNetworking (libcurl) reads two disagreeing Content-Length fields by the last one instead of failing",
                "body.chunked-trailers":
                    "FoundationNetworking stops the process with fatalError(\"Transfer completed, but there's no response.\") on a chunked body with trailers (swift-corelibs-foundation #5285)",
                "fields.repeated-response":
                    "HTTPURLResponse keeps one value per field name: repeated Set-Cookie and Link fields arrive joined with \", \"",
            ]
        #else
            [
                "fields.repeated-response":
                    "HTTPURLResponse keeps one value per field name: repeated Set-Cookie and Link fields arrive joined with \", \""
            ]
        #endif
    }()

    /// The ids of ``urlSessionLimitations`` that stop the whole process (a `fatalError` inside the
    /// platform's URLSession) rather than fail: never run them in the process of a test run.
    /// Empty on Apple platforms.
    public static let urlSessionCrashes: Set<String> = {
        #if canImport(FoundationNetworking)
            ["body.chunked-trailers"]
        #else
            []
        #endif
    }()
}
