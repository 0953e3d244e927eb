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

    /// This call with its own validation, instead of the target's or the resource's.
    public func validate(_ validation: Validation) -> Executor {
        var copy = self
        copy.options.validation = validation
        return copy
    }
}
