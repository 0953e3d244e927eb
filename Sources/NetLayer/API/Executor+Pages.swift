import Foundation

/// One page of a listing read by following `Link: rel="next"` (RFC 8288): the decoded page and
/// its response.
public struct LinkedPage<Value: Sendable>: Sendable {
    /// The page's place in the listing: 1 for the first.
    public let number: Int
    /// The page's response: the decoded ``Response/value``, status, headers, ``Response/links``,
    /// duration and attempts.
    public let response: Response<Value>

    /// The decoded page: the response's ``Response/value``.
    public var value: Value { response.value }

    /// The next page's URL: the first `Link: rel="next"` target, resolved against the page's URL;
    /// `nil` on the last page.
    public var nextURL: URL? { response.link("next") }
}

/// The pages of a listing, read one at a time by following each page's `Link: rel="next"`; see
/// ``Executor/pages(model:at:maximumPages:debug:)``.
///
/// Lazy: a page is requested only when the loop asks for it, so breaking out of the loop (or
/// cancelling its task) sends nothing more. Each iterator starts again from the first page.
public struct LinkedPages<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One page.
    public typealias Element = LinkedPage<Value>

    let executor: Executor
    let keyPath: String?
    let maximumPages: Int
    let debug: Bool

    /// Starts reading from the first page; nothing is sent until ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            walk: PageWalk(
                first: executor, keyPath: keyPath, debug: debug,
                cursor: PageCursor(maximumPages: maximumPages)))
    }

    /// Reads the pages in order.
    public struct Iterator: AsyncIteratorProtocol {
        var walk: PageWalk<Value>

        /// Sends the request for the next page and returns it decoded; `nil` after the last page
        /// (one without a `next` link) and after an error.
        /// - Throws: As ``Executor/pages(model:at:maximumPages:debug:)``.
        public mutating func next() async throws -> LinkedPage<Value>? { try await walk.next() }
    }
}

/// The items of a listing, page after page, following each page's `Link: rel="next"`; see
/// ``Executor/items(of:at:maximumPages:debug:)``.
///
/// Lazy: the next page is requested only when the loop asks for an item past the current page's
/// last, so breaking out of the loop (or cancelling its task) sends nothing more. Each iterator
/// starts again from the first page.
public struct LinkedItems<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One item.
    public typealias Element = Item

    let pages: LinkedPages<[Item]>

    /// Starts reading from the first page; nothing is sent until ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// Reads the items in order, a page at a time.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: LinkedPages<[Item]>.Iterator
        var items: [Item] = []
        var index = 0

        /// The next item, requesting the next page when this page's items are all read; `nil`
        /// after the last page's last item and after an error. Pages without items are read
        /// through.
        /// - Throws: As ``Executor/items(of:at:maximumPages:debug:)``.
        public mutating func next() async throws -> Item? {
            while index >= items.count {
                guard let page = try await pages.next() else { return nil }
                items = page.value
                index = 0
            }
            defer { index += 1 }
            return items[index]
        }
    }
}

extension Executor {
    /// The pages of a listing, following `Link: rel="next"` (RFC 8288), as GitHub's API and many
    /// others page: this call is the first page, and each page's `next` link names the one after.
    ///
    /// ```swift
    /// for try await page in repos.makeExecutor(params: ["per_page": 100]).pages(model: [Repo].self) {
    ///     print(page.number, page.value.count, page.response.headerFields["X-RateLimit-Remaining"] ?? "-")
    /// }
    /// ```
    ///
    /// Every page is a call of its own through the whole pipeline: the resource's and target's
    /// headers and this call's own, the authenticator, interceptors, retries, rate limits,
    /// validation, error mapping and debug output. Pages after the first are a GET of the link as
    /// ``Target/makeExecutor(url:method:headers:params:body:files:placement:timeout:resourceTimeout:redirects:)``
    /// follows it: this call's params and body are not sent again (the link carries what the
    /// server needs; a link without a query gets the resource's and target's params, as any call).
    ///
    /// The rules of ``Resource/follow(_:)`` hold: a `next` link must be on the resource's origin
    /// (scheme, host and port), or reading it throws ``NetLayerError/Code/invalidURL`` and nothing
    /// is sent, so the resource's credentials never go to another host; a link's fragment is
    /// dropped. The pages before it have been returned by then.
    ///
    /// Lazy: nothing is sent until the loop asks for the first page, and a page is requested only
    /// when the loop asks for it; breaking out of the loop or cancelling its task sends nothing
    /// more (a page in flight is cancelled).
    /// - Parameters:
    ///   - model: The type of one page (of the value at `keyPath`, when given).
    ///   - keyPath: Where the page's value is inside the body, as in
    ///     ``execute(model:at:debug:)`` (`"items"`); default `nil`, the whole body.
    ///   - maximumPages: The most pages read. Default 100. When the last page allowed still links
    ///     to a next one, the loop throws ``NetLayerError/Code/tooManyPages`` after that page
    ///     instead of ending as if the listing were complete. Less than 1 throws
    ///     ``NetLayerError/Code/invalidValue`` (nothing is sent); more than 100,000 is clamped to
    ///     100,000.
    ///   - debug: Print every page's request and response. Default `false`.
    /// - Returns: The pages, in order; nothing is sent yet.
    /// - Throws: From the loop, ending it: everything a call throws (an unacceptable status as the
    ///   mapped error when an ``ErrorMapping`` applies; `.decodingFailed` for a page that does not
    ///   decode); `.invalidURL` for a `next` link on another origin; `.tooManyPages` as above;
    ///   ``NetLayerError/Code/linkLoop`` when a `next` link leads back to a page already read (the
    ///   same URL, fragment aside), which would repeat forever; `.cancelled`.
    public func pages<Value: Decodable & Sendable>(
        model: Value.Type, at keyPath: String? = nil, maximumPages: Int = 100, debug: Bool = false
    ) -> LinkedPages<Value> {
        LinkedPages(executor: self, keyPath: keyPath, maximumPages: maximumPages, debug: debug)
    }

    /// The items of a listing, following `Link: rel="next"` page after page, as one sequence:
    ///
    /// ```swift
    /// for try await repo in api.repos().makeExecutor(subpath: ":org/repos", pathParts: ["org": org])
    ///     .items(of: Repo.self) { print(repo.name) }
    /// ```
    ///
    /// Each page's body (or its value at `keyPath`) is decoded as `[Item]`. Otherwise as
    /// ``pages(model:at:maximumPages:debug:)``: every page through the whole pipeline, `next` links
    /// on the resource's origin only, a page requested only when the loop needs its first item.
    /// - Parameters:
    ///   - item: The type of one item.
    ///   - keyPath: Where the page's array is inside the body (`"items"` for a search result);
    ///     default `nil`, the body is the array.
    ///   - maximumPages: The most pages read. Default 100; see
    ///     ``pages(model:at:maximumPages:debug:)``.
    ///   - debug: Print every page's request and response. Default `false`.
    /// - Returns: The items, in order; nothing is sent yet.
    /// - Throws: From the loop, ending it, after the items of the pages before: as
    ///   ``pages(model:at:maximumPages:debug:)``.
    public func items<Item: Decodable & Sendable>(
        of item: Item.Type, at keyPath: String? = nil, maximumPages: Int = 100, debug: Bool = false
    ) -> LinkedItems<Item> {
        LinkedItems(pages: pages(model: [Item].self, at: keyPath, maximumPages: maximumPages, debug: debug))
    }

    /// This call's next page: a GET of `url` on the same target, with the same options.
    func following(_ url: URL) -> Executor {
        var copy = self
        copy.spec = spec.following(url)
        return copy
    }
}

/// A walk through a listing's pages: the first call, then each `next` link (see ``PageCursor``).
struct PageWalk<Value: Decodable & Sendable> {
    let first: Executor
    let keyPath: String?
    let debug: Bool
    var cursor: PageCursor

    /// The next page; `nil` after the last and after an error.
    mutating func next() async throws -> LinkedPage<Value>? {
        let executor: Executor
        let link: URL?
        do {
            switch try cursor.step() {
            case .end: return nil
            case .first:
                executor = first
                link = nil
            case .follow(let url):
                executor = first.following(url)
                link = url
            }
            if Task.isCancelled {
                throw NetLayerError.cancelled.appending(" (paging, before page \(cursor.pagesRead + 1))")
            }
        } catch {
            cursor.finish()
            throw error
        }
        let response: Response<Value>
        do {
            response = try await executor.response(model: Value.self, at: keyPath, debug: debug)
        } catch let error as NetLayerError
            where link != nil && error.code == .invalidURL && error.part == "url"
        {
            // A `next` link the resource may not follow (another origin): nothing was sent.
            cursor.finish()
            throw error.appending(" (the next link of page \(cursor.pagesRead))")
        } catch {
            cursor.finish()
            throw error
        }
        let sent = response.sentRequest.url
        cursor.read(
            requested: link ?? response.redirects.first?.from ?? sent, sent: sent, answered: response.url,
            next: response.link("next"), redactor: response.secrets.redactor)
        return LinkedPage(number: cursor.pagesRead, response: response)
    }
}
