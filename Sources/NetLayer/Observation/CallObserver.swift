import Foundation

/// Receives what happens to calls, as it happens: the call starting, waits for admission, every
/// attempt (a retry, a redirect hop and a replay after a credentials refresh are attempts of their
/// own), each response head, each attempt's end, and the call's end.
///
/// Install one on a resource (``ResourceOptions/observer``) or on one call
/// (``Executor/observer(_:)``, where `nil` turns the resource's off). With none installed,
/// nothing of this runs and nothing is allocated for it.
///
/// Every method has a default that does nothing, so an observer implements only what it needs:
///
/// ```swift
/// struct SlowCallReporter: CallObserver {
///     func callFinished(_ event: CallFinished) {
///         if event.duration > .seconds(2) { print("slow: \(event.metrics)") }
///     }
/// }
/// ```
///
/// ``callStarted(_:)`` returns the observer that receives the rest of that call's events: by
/// default `self`, so one value sees every call (tell them apart by ``CallID``). Return a new
/// object to keep per-call state without a shared table (a tracer's spans), or `nil` to ignore
/// the call (sampling).
///
/// Guarantees, for each call:
/// - ``callStarted(_:)`` comes first and ``callFinished(_:)`` last; nothing follows it.
/// - Every event is delivered at most once; every ``attemptStarted(_:headers:)`` is followed by
///   exactly one ``attemptFinished(_:)`` for that attempt (before ``callFinished(_:)``), with at
///   most one ``headReceived(_:)`` between them.
/// - Events are delivered one at a time and in order. They run synchronously where the event
///   happens — the calling task, or a transport thread when a body ends there — so keep them short
///   and never block on the call. Events raised from inside an observer's own callback for the
///   same call are delivered after that callback returns.
/// - URLs and header fields are redacted as NetLayer's debug output is (DESIGN §17): no credential,
///   no value of a secret header, param or path part appears in any event.
///
/// A call's attempt ends when its body ends — read to the end, set aside by NetLayer (a redirect,
///   a retry, a replay), stopped by the consumer, or failed — not when its head arrives; a call
///   ends when its consumer is done with it (the whole body collected, the stream ended or
///   stopped, the file in place). Decoding the body is not part of the call.
public protocol CallObserver: Sendable {
    /// A call is about to run (after its request was built; a call whose request cannot be built
    /// never starts).
    /// - Returns: Who receives this call's further events: default `self`; `nil` ignores the call.
    func callStarted(_ event: CallStarted) -> (any CallObserver)?

    /// The call waited before an attempt: for admission (a pause a server asked for with
    /// `Retry-After`, a concurrency slot, a rate limit) or for the retry policy's delay. Only real
    /// waits are reported, once each has ended. Default: nothing.
    func admissionWaited(_ event: AdmissionWaited)

    /// An attempt is about to be handed to the transport (after admission). `headers` adds fields
    /// to this attempt's request — trace context such as W3C `traceparent` — and is empty at first.
    /// Default: nothing.
    func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders)

    /// An attempt's response head arrived. Default: nothing.
    func headReceived(_ event: HeadReceived)

    /// An attempt ended: its body was read to the end, set aside, stopped or failed, or it failed
    /// before a head arrived. Default: nothing.
    func attemptFinished(_ event: AttemptFinished)

    /// The call ended, successfully or not. Carries the call's whole ``CallMetrics``. Default:
    /// nothing.
    func callFinished(_ event: CallFinished)
}

extension CallObserver {
    /// Returns `self`: this observer receives the call's further events.
    public func callStarted(_ event: CallStarted) -> (any CallObserver)? { self }
    /// Does nothing.
    public func admissionWaited(_ event: AdmissionWaited) {}
    /// Does nothing (adds no header).
    public func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) {}
    /// Does nothing.
    public func headReceived(_ event: HeadReceived) {}
    /// Does nothing.
    public func attemptFinished(_ event: AttemptFinished) {}
    /// Does nothing.
    public func callFinished(_ event: CallFinished) {}
}

/// Header fields a ``CallObserver`` adds to one attempt's request in
/// ``CallObserver/attemptStarted(_:headers:)``: trace context such as W3C `traceparent` and
/// `tracestate`. They are added to that attempt only (each retry, redirect hop and replay gets its
/// own), replacing a field of the same name the request carries.
public struct AttemptHeaders: Sendable {
    /// The fields added so far, in order.
    public private(set) var fields = HeaderFields()
    /// The resource's redaction: names it lists are credentials, which an observer cannot set.
    let redaction: Redaction

    init(redaction: Redaction) { self.redaction = redaction }

    /// The value added under `name` (any case), if any.
    public subscript(name: String) -> String? { fields[name] }

    /// Adds `value` under `name`, replacing a value added before under that name.
    /// - Throws: ``NetLayerError/Code/invalidHeader`` when `name` is not an RFC 9110 token, is a
    ///   framing field NetLayer owns (`Content-Length`, `Host`, …), or is a credential the
    ///   resource's ``Redaction`` hides (`Authorization`, `Cookie`, …), or when `value` holds a
    ///   control character other than HTAB. Nothing is added then.
    public mutating func set(_ value: String, for name: String) throws(NetLayerError) {
        if redaction.isSecret(name) {
            var failure = NetLayerError(
                .invalidHeader,
                "an observer cannot set \(name): the resource's redaction treats it as a credential")
            failure.part = name
            throw failure
        }
        try fields.setValue(value, for: name)
    }
}
