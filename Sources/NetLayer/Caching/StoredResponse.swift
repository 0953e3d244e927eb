import Foundation

/// A response head as a private cache keeps it, with the two instants §4.2.3 needs: the one value
/// the later cache stage and its stores hold per entry, and the decisions made on it. Pure: every
/// function that depends on the time takes `now`.
struct StoredResponse: Sendable, Hashable {
    /// The status code.
    let status: Int
    /// The stored fields (``Storability/storedHeaders(_:)`` applied).
    let headers: HeaderFields
    /// When the request that fetched it was sent (§4.2.3 `request_time`).
    let requestTime: Date
    /// When the response was received (§4.2.3 `response_time`).
    let responseTime: Date
    /// The selecting fields of the request it answered (§4.1).
    let vary: VaryKey

    /// Whether a response is stored, and as what.
    enum StorageDecision: Sendable, Hashable {
        /// Store this entry.
        case store(StoredResponse)
        /// Do not store it, for this reason.
        case doNotStore(Storability.Reason)
    }

    /// The entry to store for a response, or why there is none (§3).
    static func make(
        method: HTTPMethod, requestHeaders: HeaderFields, status: Int, responseHeaders: HeaderFields,
        requestTime: Date, responseTime: Date
    ) -> StorageDecision {
        if let reason = Storability.reasonNotToStore(
            method: method, requestHeaders: requestHeaders, status: status, responseHeaders: responseHeaders)
        {
            return .doNotStore(reason)
        }
        guard let vary = VaryKey(responseHeaders: responseHeaders, requestHeaders: requestHeaders) else {
            return .doNotStore(.vary)
        }
        return .store(
            StoredResponse(
                status: status, headers: Storability.storedHeaders(responseHeaders), requestTime: requestTime,
                responseTime: responseTime, vary: vary))
    }

    /// Its freshness lifetime (§4.2.1).
    var freshness: Freshness { Freshness(status: status, headers: headers, responseTime: responseTime) }

    /// Its current age at `now`, in seconds (§4.2.3).
    func age(at now: Date) -> Double {
        Freshness.currentAge(headers: headers, requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// Seconds of freshness left at `now`: negative when stale (RFC 9211 `Cache-Status` `ttl`).
    func timeToLive(at now: Date) -> Double { freshness.lifetime - age(at: now) }

    /// Whether it is fresh at `now` (§4.2: its age is less than its lifetime).
    func isFresh(at now: Date) -> Bool { timeToLive(at: now) > 0 }

    /// What may be done with it for a request sending `requestHeaders` at `now`; `nil` when the
    /// request's selecting fields differ (§4.1: another variant, or a miss).
    func reuse(for requestHeaders: HeaderFields, at now: Date) -> CacheReuse? {
        guard vary.matches(requestHeaders, contentLanguage: headers["Content-Language"]) else { return nil }
        return CacheReuse.decide(
            request: RequestCacheDirectives(requestHeaders), response: ResponseCacheDirectives(headers),
            lifetime: freshness.lifetime, age: age(at: now))
    }

    /// The fields to send when serving it at `now` (§4, §5.1): the stored ones with `Age` set to the
    /// current age in whole seconds (cache-tests `other-age-gen`, `other-age-update-max-age`,
    /// `other-age-update-expires`, required); `Date` is left as received (`other-date-update`,
    /// `other-date-update-expires`, required).
    func servedHeaders(at now: Date) -> HeaderFields {
        var served = headers
        let seconds = min(Double(DeltaSeconds.maximum), age(at: now).rounded(.down))
        served.set("Age", String(Int(seconds)))
        return served
    }

    /// This entry without the selecting fields that carry credentials (`Authorization`,
    /// `Proxy-Authorization`, `Cookie` and `redaction`'s secret headers): the key's partition
    /// (``CredentialPartition``) already holds every request it answers to the same values of
    /// those fields, so comparing them again selects nothing more, and a store that writes the
    /// entry down never writes a credential.
    func withoutCredentialFields(redaction: Redaction) -> StoredResponse {
        let kept = vary.fields.filter { field in
            !CredentialPartition.credentialNames.contains(field.name) && !redaction.isSecret(field.name)
        }
        guard kept.count != vary.fields.count else { return self }
        return StoredResponse(
            status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            vary: VaryKey(fields: kept))
    }

    /// This entry stale whatever its lifetime (§4.3.5: a HEAD answer that does not match it): its
    /// instants moved to ``Date/distantPast``, so its age passes any lifetime a response can give
    /// (at most 2³¹ s). `max-stale` and `stale-if-error` may still serve it.
    func markedStale() -> StoredResponse {
        StoredResponse(
            status: status, headers: headers, requestTime: .distantPast, responseTime: .distantPast,
            vary: vary)
    }

    /// This entry freshened by a 304 received at `responseTime` for a request sent at `requestTime`
    /// (§4.3.4): the 304's fields merged in (``CacheValidation/updatedHeaders(_:with:)``) and the
    /// times replaced, so the age counts from the validation. A stored `Age` is dropped unless the
    /// 304 carries its own: it described the old response, not this one.
    func freshened(by notModified: HeaderFields, requestTime: Date, responseTime: Date) -> StoredResponse {
        var merged = headers
        if notModified["Age"] == nil { merged.remove("Age") }
        return StoredResponse(
            status: status, headers: CacheValidation.updatedHeaders(merged, with: notModified),
            requestTime: requestTime, responseTime: responseTime, vary: vary)
    }
}
