/// PLACEHOLDER until the limiter lands.
public struct RateLimit: Sendable, Hashable {
    public let requests: Int
    public let window: Duration
    public init(requests: Int, per window: Duration) {
        self.requests = requests
        self.window = window
    }
}
