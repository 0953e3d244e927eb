extension TransportConformance {
    /// The scenarios ``URLSessionTransport`` (NetLayer's default transport) fails on this platform,
    /// each with the reason: limits of the platform's URLSession that NetLayer cannot work around.
    /// Empty on Apple platforms; on Linux (FoundationNetworking) see DESIGN §19. A scenario listed
    /// in ``urlSessionCrashes`` stops the process instead of failing.
    public static let urlSessionLimitations: [String: String] = {
        #if canImport(FoundationNetworking)
            [
                "malformed.status-without-reason":
                    "FoundationNetworking rejects a status line without a reason phrase (`HTTP/1.1 200`)",
                "malformed.status-version-case":
                    "FoundationNetworking accepts `Http/1.1` as the version of a status line",
                "body.chunked-trailers":
                    "FoundationNetworking stops the process with fatalError(\"Transfer completed, but there's no response.\") on a chunked body with trailers (swift-corelibs-foundation #5285)",
            ]
        #else
            [:]
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
