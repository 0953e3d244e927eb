import Foundation

/// How one call runs, besides what it sends (``CallSpec``): the policies it takes from its target
/// or sets itself, and who listens to its progress. Every field left `nil` falls back to the
/// resource's ``ResourceOptions``.
struct CallOptions: Sendable {
    /// How redirects are followed: the call's, the target's or the resource's.
    var redirectPolicy: RedirectPolicy
    /// The target's ``ErrorMapping``, else the resource's.
    var errorMapping: ErrorMapping?
    /// The target's and the call's interceptors, in that order (the resource's run outside them).
    var interceptors: [any Interceptor] = []
    /// The call's or the target's retry policy; `nil`: the resource's.
    var retryPolicy: RetryPolicy?
    /// Set by ``Executor/idempotent(_:)``; `nil`: decided by the method.
    var idempotentOverride: Bool? = nil
    /// The call's or the target's validation; `nil`: the resource's.
    var validation: Validation?
    /// The call's or the target's use of the resource's cache; `nil`: ``CachePolicy/standard``.
    var cachePolicy: CachePolicy? = nil
    /// Receives upload and download progress; set by ``Executor/progress(_:)``.
    var progressHandler: (@Sendable (TransferProgress) -> Void)? = nil
    /// Called once when a call ends, however it ends; set by ``Executor/progressUpdates()``.
    var progressEnded: (@Sendable () -> Void)? = nil
    /// Set by ``Executor/observer(_:)`` (its observer, `nil` inside turning the resource's off);
    /// `nil`: the resource's. Boxed, so a call that sets none carries one word, not an existential.
    var observer: ObserverChoice? = nil
}

/// A call's own choice of observer (see ``Executor/observer(_:)``).
final class ObserverChoice: Sendable {
    /// The observer; `nil` turns observation off for the call.
    let observer: (any CallObserver)?
    init(_ observer: (any CallObserver)?) { self.observer = observer }
}
