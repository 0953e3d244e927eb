import Foundation
import NetLayer

/// One request as the suite's server recorded it (`GET /state/ID`).
struct ServerRequest: Sendable {
    /// The `Req-Num` the client sent, `nil` when it sent none.
    let requestNumber: Int?
    /// The method.
    let method: String
    /// The fields, by lowercased name (Node joins repeated fields, but keeps `Set-Cookie` as a list).
    let requestFields: [String: JSONValue]
    /// The response fields the server set and the client must see unchanged: `[name, value]`.
    let responseFields: [(name: String, value: JSONValue)]

    /// A request field's value as text (a list joined with `, `), `nil` when absent.
    func requestField(_ lowercasedName: String) -> String? {
        requestFields[lowercasedName].flatMap(HeaderTemplate.text(of:))
    }

    /// Reads the server's state document.
    /// - Throws: ``TestFailure`` when it is not a JSON array of request records.
    static func list(from data: Data) throws(TestFailure) -> [ServerRequest] {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw TestFailure(kind: "Setup", message: "the server's state is not JSON: \(error)")
        }
        guard let records = json.arrayValue else {
            throw TestFailure(kind: "Setup", message: "the server's state is not a JSON array")
        }
        return records.map { record in
            let saved = record["response_headers"]?.arrayValue ?? []
            return ServerRequest(
                requestNumber: record["request_num"]?.intValue,
                method: record["request_method"]?.stringValue ?? "",
                requestFields: record["request_headers"]?.objectValue ?? [:],
                responseFields: saved.compactMap { pair in
                    guard let name = pair[0]?.stringValue, let value = pair[1] else { return nil }
                    return (name, value)
                })
        }
    }
}
