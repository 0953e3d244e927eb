import Foundation
import Hummingbird

/// What the flaky routes have seen, for the sample to check its retries against.
public struct WarehouseStats: Sendable {
    /// `GET /v1/books/:id/stock` requests per book id.
    public var stockRequests: [Int: Int] = [:]
    /// `POST /v1/orders` requests.
    public var orderRequests = 0
    /// Orders stored (one per `Idempotency-Key`).
    public var orders = 0
    /// Requests answered with an order stored earlier under the same key.
    public var replayedOrders = 0
    /// `GET /v1/bestsellers` requests, and how many carried `If-None-Match`.
    public var bestsellerRequests = 0
    public var conditionalBestsellerRequests = 0
}

/// Routes that fail the way real back ends do, so the client's retries have something to do:
/// - `GET /v1/books/:id/stock`: the warehouse. For each book, the first request is answered
///   503 with `Retry-After: 1` (restarting), the second 500 (a shelf scan failed), every later one
///   200 with the stock.
/// - `POST /v1/orders`: needs an `Idempotency-Key`. The first request with a key stores the order
///   and then answers 500, as when a proxy loses the answer; a request repeating the key gets the
///   stored order (201, `Idempotent-Replayed: true`), never a second order.
/// - `GET /v1/promotions`: answered 200 with an HTML maintenance page instead of JSON, as a
///   misconfigured proxy or CDN would.
/// - `GET /v1/bestsellers`: a list to cache: `ETag`, `Cache-Control: max-age=0,
///   stale-if-error=600`, 304 to a matching `If-None-Match`; from its third request on, the back
///   end is down (503).
struct WarehouseRoutes {
    let store: BookStore
    let state: WarehouseState

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("books/:id/stock", use: stock)
        group.post("orders", use: order)
        group.get("promotions", use: promotions)
        group.get("bestsellers", use: bestsellers)
    }

    @Sendable func bestsellers(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tag = "\"bestsellers-1\""
        let conditional = request.headers[.ifNoneMatch] == tag
        let count = await state.bestsellersRequest(conditional: conditional)
        if count > 2 {
            throw APIError(
                status: .serviceUnavailable, code: "catalog_down",
                message: "the catalog is down for maintenance")
        }
        let headers: HTTPFields = [.eTag: tag, .cacheControl: "max-age=0, stale-if-error=600"]
        if conditional { return Response(status: .notModified, headers: headers) }
        var response = try JSONResponse.make([StockRecord(bookId: 1, inStock: 12, warehouse: "Leipzig")])
        response.headers.append(contentsOf: headers)
        return response
    }

    @Sendable func stock(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try BookRoutes.bookID(context)
        guard await store.book(id) != nil else { throw APIError.notFound("no book with id \(id)") }
        switch await state.stockRequest(for: id) {
        case 1:
            throw APIError(
                status: .serviceUnavailable, code: "warehouse_restarting",
                message: "the warehouse is restarting", headers: [.retryAfter: "1"])
        case 2:
            throw APIError(
                status: .internalServerError, code: "internal_error", message: "the shelf scan failed")
        default:
            return try JSONResponse.make(StockRecord(bookId: id, inStock: 3 + id % 5, warehouse: "Leipzig"))
        }
    }

    @Sendable func order(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let key = request.headers[HTTPFields.Element.Name("Idempotency-Key")!], !key.isEmpty else {
            throw APIError(
                status: .badRequest, code: "idempotency_key_required",
                message: "send an Idempotency-Key header with every order")
        }
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw APIError.unsupportedMediaType("send the order as application/json")
        }
        let body = try await request.body.collect(upTo: 16 * 1024)
        guard
            let payload = try? WireJSON.decoder.decode(OrderPayload.self, from: Data(body.readableBytesView))
        else {
            throw APIError.badRequest("the body is not a JSON order")
        }
        guard payload.quantity > 0 else { throw APIError.unprocessable("quantity must be at least 1") }
        guard await store.book(payload.bookId) != nil else {
            throw APIError.notFound("no book with id \(payload.bookId)")
        }
        switch await state.order(payload, key: key) {
        case .stored:
            throw APIError(
                status: .internalServerError, code: "internal_error",
                message: "the order was stored, but its answer was lost")
        case .replayed(let order):
            var response = try JSONResponse.make(order, status: .created)
            response.headers[HTTPFields.Element.Name("Idempotent-Replayed")!] = "true"
            return response
        }
    }

    @Sendable func promotions(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let page = "<!doctype html><title>Maintenance</title><p>Promotions are back soon.</p>\n"
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }
}

/// The body of `POST /v1/orders`.
struct OrderPayload: Decodable, Sendable {
    var bookId: Int
    var quantity: Int
}

/// A stored order.
struct OrderRecord: Encodable, Sendable {
    var id: Int
    var bookId: Int
    var quantity: Int
}

/// The answer to `GET /v1/books/:id/stock`.
struct StockRecord: Encodable, Sendable {
    var bookId: Int
    var inStock: Int
    var warehouse: String
}

/// The counters and orders behind ``WarehouseRoutes``.
actor WarehouseState {
    enum Outcome {
        /// Stored just now (and the answer is "lost").
        case stored
        /// Stored by an earlier request with the same key.
        case replayed(OrderRecord)
    }

    private(set) var stats = WarehouseStats()
    private var ordersByKey: [String: OrderRecord] = [:]

    /// Counts a bestsellers request; returns which one it is, from 1.
    func bestsellersRequest(conditional: Bool) -> Int {
        stats.bestsellerRequests += 1
        if conditional { stats.conditionalBestsellerRequests += 1 }
        return stats.bestsellerRequests
    }

    /// Counts a stock request; returns which request for this book it is, from 1.
    func stockRequest(for id: Int) -> Int {
        stats.stockRequests[id, default: 0] += 1
        return stats.stockRequests[id, default: 0]
    }

    func order(_ payload: OrderPayload, key: String) -> Outcome {
        stats.orderRequests += 1
        if let order = ordersByKey[key] {
            stats.replayedOrders += 1
            return .replayed(order)
        }
        stats.orders += 1
        ordersByKey[key] = OrderRecord(
            id: 500 + stats.orders, bookId: payload.bookId, quantity: payload.quantity)
        return .stored
    }
}
