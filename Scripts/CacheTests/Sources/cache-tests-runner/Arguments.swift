/// The runner's command line:
/// `cache-tests-runner BASE_URL [DEFINITIONS.json | -] [--output FILE] [--group-size N] [--only ID]…
/// [--disk DIR]`
struct Arguments: Sendable {
    /// The suite server's base URL, `http://127.0.0.1:PORT`.
    var baseURL: String
    /// The definitions file; `nil` (or `-`) reads standard input.
    var definitionsPath: String?
    /// Where the results JSON goes; `nil` writes it to standard output.
    var outputPath: String?
    /// How many tests run at once (the suite's 25).
    var groupSize = 25
    /// Only these test ids (all applicable tests when empty).
    var only: [String] = []
    /// The directory of a disk cache; `nil`: the cache is in memory.
    var diskDirectory: String?

    static let usage = """
        usage: cache-tests-runner BASE_URL [DEFINITIONS.json | -] [--output FILE] [--group-size N] [--only ID]... [--disk DIR]
          BASE_URL          the suite's server, http://127.0.0.1:PORT
          DEFINITIONS.json  the suite's tests as JSON (tests/index.mjs); standard input when absent or -
          --output FILE     write the results JSON there instead of standard output
          --group-size N    tests run at once (default 25, as the suite's runner)
          --only ID         run only this test (repeatable)
          --disk DIR        keep the cache's entries on disk in DIR (default: in memory)
        """

    /// Reads the arguments (without the program name).
    /// - Throws: ``DefinitionError`` with the usage for a wrong command line.
    init(_ arguments: [String]) throws(DefinitionError) {
        var positional: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--output", "--group-size", "--only", "--disk":
                guard let value = rest.popFirst() else {
                    throw DefinitionError("\(argument) needs a value\n\(Self.usage)")
                }
                if argument == "--output" {
                    outputPath = value
                } else if argument == "--disk" {
                    diskDirectory = value
                } else if argument == "--only" {
                    only.append(value)
                } else {
                    guard let size = Int(value), size >= 1 else {
                        throw DefinitionError("--group-size must be a positive integer\n\(Self.usage)")
                    }
                    groupSize = min(size, 400)
                }
            case "-h", "--help":
                throw DefinitionError(Self.usage)
            default:
                positional.append(argument)
            }
        }
        guard (1...2).contains(positional.count) else { throw DefinitionError(Self.usage) }
        baseURL = positional[0]
        definitionsPath = positional.count == 2 && positional[1] != "-" ? positional[1] : nil
        groupSize = max(1, groupSize)
    }
}
