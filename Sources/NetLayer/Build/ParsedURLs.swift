import Foundation

/// The URLs a resource's calls parsed lately, by their text: a service's calls mostly go to the same
/// few URLs, and parsing one (`URL(string:)`) is the largest single cost of preparing a simple call
/// (about half of it, measured in place). Bounded: past ``capacity`` texts it starts over.
final class ParsedURLs: Sendable {
    /// The most texts kept: enough for a service's fixed endpoints, small enough to stay cheap
    /// (a query that changes every call only ever costs a parse and an insert).
    static let capacity = 256

    private let urls = LockedValue([String: URL]())

    /// How many texts are kept now.
    var count: Int { urls.withLock { $0.count } }

    /// The URL for `text`, parsed once while it stays in the cache; `nil` when `text` is not a URL.
    func url(_ text: String) -> URL? {
        if let known = urls.withLock({ $0[text] }) { return known }
        guard let url = URL(string: text) else { return nil }
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[text] = url
        }
        return url
    }
}
