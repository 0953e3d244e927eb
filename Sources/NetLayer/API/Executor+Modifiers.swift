extension Executor {
    /// This call with `interceptors` added, inside the resource's and the target's (the last one
    /// given is innermost).
    public func intercepted(by interceptors: any Interceptor...) -> Executor {
        var copy = self
        copy.options.interceptors += interceptors
        return copy
    }

    /// This call with its own retry policy, instead of the target's or the resource's.
    public func retry(_ policy: RetryPolicy) -> Executor {
        var copy = self
        copy.options.retryPolicy = policy
        return copy
    }

    /// This call declared safe (or unsafe) to send more than once, whatever its method: a POST
    /// carrying an `Idempotency-Key` the server deduplicates by. Only idempotent calls are
    /// retried. Default for every call: GET, HEAD, PUT, DELETE, OPTIONS and TRACE are, others are
    /// not.
    public func idempotent(_ isIdempotent: Bool = true) -> Executor {
        var copy = self
        copy.options.idempotentOverride = isIdempotent
        return copy
    }

    /// This call observed by `observer` instead of the resource's ``ResourceOptions/observer``.
    /// - Parameter observer: Receives the call's events (see ``CallObserver``); `nil` turns
    ///   observation off for this call.
    /// - Returns: A copy of this executor.
    public func observer(_ observer: (any CallObserver)?) -> Executor {
        var copy = self
        copy.options.observer = ObserverChoice(observer)
        return copy
    }

    /// This call with its own use of the resource's ``ResourceOptions/cache``, instead of the
    /// target's (``Target/cachePolicy``) or ``CachePolicy/standard``.
    /// - Parameter policy: ``CachePolicy/bypass``, ``CachePolicy/revalidate``,
    ///   ``CachePolicy/onlyIfCached`` or ``CachePolicy/standard``.
    /// - Returns: A copy of this executor.
    public func cachePolicy(_ policy: CachePolicy) -> Executor {
        var copy = self
        copy.options.cachePolicy = policy
        return copy
    }

    /// This call with its own validation, instead of the target's or the resource's.
    public func validate(_ validation: Validation) -> Executor {
        var copy = self
        copy.options.validation = validation
        return copy
    }

    /// This call with `handler` receiving upload and download progress. Events are monotonic,
    /// throttled to about 500 per direction, and end with one ``TransferProgress/isFinished`` event
    /// per direction when the transfer completes. The handler runs on a transport thread; keep it
    /// short.
    /// - Parameter handler: Called with each event.
    /// - Returns: A copy of this executor; the original reports nothing.
    public func progress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Executor {
        var copy = self
        let previous = options.progressHandler
        copy.options.progressHandler = { event in
            previous?(event)
            handler(event)
        }
        return copy
    }

    /// This call with its progress as an `AsyncStream`, obtained before the call starts, so no
    /// event is lost. The stream finishes when the first call made with the returned executor ends
    /// (after its final events, or on failure).
    ///
    /// ```swift
    /// let (upload, progress) = target.makeExecutor(method: .post, body: .file(video)).progressUpdates()
    /// Task { for await event in progress { bar.update(event.fraction ?? 0) } }
    /// try await upload.execute()
    /// ```
    public func progressUpdates() -> (executor: Executor, updates: AsyncStream<TransferProgress>) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        var copy = progress { event in continuation.yield(event) }
        copy.options.progressEnded = { continuation.finish() }
        return (copy, stream)
    }
}
