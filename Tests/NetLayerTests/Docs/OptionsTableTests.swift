import Foundation
import NetLayer
import Testing

/// `Docs/Guide.md` lists every `ResourceOptions` property in one table: a property added without
/// a row, a row left behind by a removed property, or a row whose type or default went stale
/// fails here.
@Suite("Docs: the Guide's options table lists every option")
struct OptionsTableTests {
    /// One row of the table: the option's name, its type and its default, as written.
    struct Row {
        var name: String
        var type: String
        var defaultValue: String
    }

    struct NoTable: Error, CustomStringConvertible {
        var description: String { "Docs/Guide.md has no \"## Resource options\" section" }
    }

    /// The rows of the first table under `## Resource options`.
    static func rows() throws -> [Row] {
        let guide = try String(
            contentsOf: DocsExamplesTests.repository.appendingPathComponent("Docs/Guide.md"), encoding: .utf8)
        let lines = guide.split(separator: "\n", omittingEmptySubsequences: false)
        guard let heading = lines.firstIndex(of: "## Resource options") else { throw NoTable() }
        let table = lines[heading...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        // The header and the separator line first.
        return table.dropFirst(2).map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            func code(_ index: Int) -> String {
                guard cells.indices.contains(index) else { return "" }
                return cells[index].split(separator: "`", omittingEmptySubsequences: false).dropFirst().first
                    .map(String.init) ?? ""
            }
            return Row(name: code(1), type: code(2), defaultValue: cells.indices.contains(3) ? cells[3] : "")
        }
    }

    /// The stored properties of `ResourceOptions`, in declaration order, with their types.
    static let properties: [(name: String, type: String)] = Mirror(reflecting: ResourceOptions()).children
        .map { child in (child.label ?? "?", swiftSpelling(of: type(of: child.value))) }

    /// A type as the docs spell it: `Duration?`, `[any Interceptor]`.
    static func swiftSpelling(of type: Any.Type) -> String {
        var name = String(describing: type)
        if name.hasPrefix("Optional<"), name.hasSuffix(">") {
            name = String(name.dropFirst("Optional<".count).dropLast()) + "?"
        }
        if name.hasPrefix("Array<"), name.hasSuffix(">") {
            name = "[" + String(name.dropFirst("Array<".count).dropLast()) + "]"
        }
        return name.replacingOccurrences(of: "[Interceptor]", with: "[any Interceptor]")
    }

    @Test func everyPropertyHasOneRowAndEveryRowIsAProperty() throws {
        let rows = try Self.rows()
        #expect(Self.properties.count >= 17)
        let names = rows.map(\.name)
        #expect(
            names == Self.properties.map(\.name),
            "table rows \(names) vs properties \(Self.properties.map(\.name))")
    }

    @Test func everyRowStatesThePropertysTypeAndADefault() throws {
        let rows = Dictionary(try Self.rows().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for property in Self.properties {
            let row = rows[property.name]
            #expect(row?.type == property.type, "\(property.name): the table says \(row?.type ?? "nothing")")
            #expect(row?.defaultValue.isEmpty == false, "\(property.name): no default in the table")
        }
    }
}
