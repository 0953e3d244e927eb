import NetLayer

/// One test of the suite, as its definitions describe it (`tests/*.mjs`, printed as JSON by
/// `tests/index.mjs`).
struct SuiteTest: Sendable {
    /// The test's id: the key of its result.
    let id: String
    /// The test's name, sent in every request's `Test-Name` field.
    let name: String
    /// `required` (also when the definition gives none), `optimal` or `check`.
    let kind: String
    /// Tests that must pass for this one to count (applied when scoring, not when running).
    let dependsOn: [String]
    /// Run only against a browser (private) cache.
    let browserOnly: Bool
    /// Not run against a browser (private) cache.
    let browserSkip: Bool
    /// Run only against a CDN.
    let cdnOnly: Bool
    /// The test's requests in order, each as the definitions give it.
    let requests: [RequestTemplate]
}

extension SuiteTest {
    /// Reads one test of a suite.
    /// - Throws: ``DefinitionError`` when the test has no id or no requests array.
    init(json: JSONValue) throws(DefinitionError) {
        guard let id = json["id"]?.stringValue, !id.isEmpty else {
            throw DefinitionError("a test without an id: \(String(describing: json["name"]))")
        }
        guard let requests = json["requests"]?.arrayValue else {
            throw DefinitionError("test \(id) has no requests array")
        }
        var templates: [RequestTemplate] = []
        for request in requests {
            guard let fields = request.objectValue else {
                throw DefinitionError("test \(id) has a request that is not an object")
            }
            templates.append(RequestTemplate(fields: fields))
        }
        self.id = id
        self.name = json["name"]?.stringValue ?? id
        self.kind = json["kind"]?.stringValue ?? "required"
        self.dependsOn = json["depends_on"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.browserOnly = json["browser_only"]?.boolValue ?? false
        self.browserSkip = json["browser_skip"]?.boolValue ?? false
        self.cdnOnly = json["cdn_only"]?.boolValue ?? false
        self.requests = templates
    }

    /// Reads every test of every suite, in the definitions' order.
    /// - Parameter definitions: The JSON array `tests/index.mjs` exports: suites with `tests`.
    /// - Throws: ``DefinitionError`` for a document of another shape.
    static func all(in definitions: JSONValue) throws(DefinitionError) -> [SuiteTest] {
        guard let suites = definitions.arrayValue else {
            throw DefinitionError("the definitions are not a JSON array of suites")
        }
        var tests: [SuiteTest] = []
        for suite in suites {
            guard let members = suite["tests"]?.arrayValue else {
                throw DefinitionError("suite \(suite["id"]?.stringValue ?? "?") has no tests array")
            }
            for member in members {
                tests.append(try SuiteTest(json: member))
            }
        }
        return tests
    }
}

/// Definitions that do not have the suite's shape.
struct DefinitionError: Error, CustomStringConvertible {
    /// What is wrong, for the person running the suite.
    let description: String

    init(_ description: String) { self.description = description }
}
