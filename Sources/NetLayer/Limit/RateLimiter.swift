/// PLACEHOLDER until the limiter lands.
actor RateLimiter {
    nonisolated let isUnlimited: Bool
    init(limits: [RateLimit]) { isUnlimited = limits.isEmpty }
    func acquire() async throws {}
}
