import Foundation

/// Where a walk through `Link: rel="next"` pages is (RFC 8288): which page comes next, and when the
/// walk must stop with an error instead — a page limit reached while a next link remains, or a next
/// link leading back to a page already read. Pure: it sends nothing; the caller fetches what
/// ``step()`` names and reports it with ``read(requested:sent:answered:next:redactor:)``.
struct PageCursor: Sendable {
    /// What to fetch next.
    enum Step: Equatable {
        /// The first page: the call as described.
        case first
        /// A next page, at this URL (its fragment dropped).
        case follow(URL)
        /// No more pages.
        case end
    }

    /// The most pages read, after clamping; see ``clamped(_:)``.
    let maximumPages: Int
    /// Why the walk cannot start (a limit below 1); thrown by the first ``step()``.
    private let problem: NetLayerError?
    /// Pages read so far.
    private(set) var pagesRead = 0
    /// Every URL a page was asked for or answered from, without fragments.
    private var seen: Set<String> = []
    /// The last page's next link, its fragment dropped.
    private var next: URL?
    /// The redactor of the call that gave ``next`` (for errors naming it).
    private var redactor: Redactor?
    /// Whether the walk ended (its last page read, or an error thrown).
    private(set) var isFinished = false

    /// The largest `maximumPages` honoured: 100,000 (a walk remembers every URL it read, to find
    /// loops).
    static let largestMaximum = 100_000

    /// A cursor reading at most `maximumPages` pages: less than 1 makes the first ``step()`` throw
    /// ``NetLayerError/Code/invalidValue``; more than ``largestMaximum`` is clamped to it.
    init(maximumPages: Int) {
        self.maximumPages = Self.clamped(maximumPages)
        problem =
            maximumPages < 1
            ? .invalidValue(part: "maximumPages", reason: "\(maximumPages) is less than 1") : nil
    }

    /// `maximumPages` within `1...largestMaximum`.
    static func clamped(_ maximumPages: Int) -> Int { min(max(1, maximumPages), largestMaximum) }

    /// What to fetch next.
    /// - Throws: ``NetLayerError``: `.invalidValue` for a limit below 1 (first step, nothing sent);
    ///   `.tooManyPages` when ``maximumPages`` pages were read and the last links to another;
    ///   `.linkLoop` when the next link leads back to a page already read. The walk ends then.
    mutating func step() throws(NetLayerError) -> Step {
        if isFinished { return .end }
        if let problem {
            isFinished = true
            throw problem
        }
        if pagesRead == 0 { return .first }
        guard let next else {
            isFinished = true
            return .end
        }
        let shown = redactor?.url(next) ?? next.absoluteString
        if seen.contains(Self.key(next)) {
            isFinished = true
            throw masked(
                NetLayerError(
                    .linkLoop,
                    "page \(pagesRead) links to \(shown) as its next page, a page already read; paging stops instead of repeating"
                ))
        }
        if pagesRead >= maximumPages {
            isFinished = true
            throw masked(
                NetLayerError(
                    .tooManyPages,
                    "page \(pagesRead) links to a next page (\(shown)), but maximumPages is \(maximumPages); raise it to read further"
                ))
        }
        return .follow(next)
    }

    /// Notes a page read: the URL it was asked for, the URL it was sent to (the last hop), the URL
    /// that answered, and its next link (`nil` on the last page).
    mutating func read(requested: URL, sent: URL, answered: URL?, next: URL?, redactor: Redactor) {
        pagesRead += 1
        for url in [requested, sent, answered].compactMap({ $0 }) { seen.insert(Self.key(url)) }
        self.next = next.map(Self.withoutFragment)
        self.redactor = redactor
    }

    /// `error` masked by the redactor of the call whose link it names.
    private func masked(_ error: NetLayerError) -> NetLayerError {
        redactor.map { error.redacted(by: $0) } ?? error
    }

    /// Ends the walk (after an error of the page's call).
    mutating func finish() { isFinished = true }

    /// `url` as pages are compared: its absolute text without a fragment.
    private static func key(_ url: URL) -> String { withoutFragment(url).absoluteString }

    /// `url` without its fragment (which no request carries).
    static func withoutFragment(_ url: URL) -> URL {
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return url }
        return URL(string: String(text[..<hash])) ?? url
    }
}
