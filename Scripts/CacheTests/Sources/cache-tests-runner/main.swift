import Foundation
import NetLayer

/// Runs the cache tests through NetLayer: reads the command line and the definitions, runs every
/// test that applies to a private cache, writes the results JSON. Exits 0 when the results were
/// written (failed tests are results), 1 when the run could not start, 2 for a wrong command line.
func runMain() async -> Int32 {
    let arguments: Arguments
    let address: ServerAddress
    do {
        arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
        address = try ServerAddress(arguments.baseURL)
    } catch {
        printError(error.description)
        return 2
    }
    let tests: [SuiteTest]
    do {
        let data: Data
        if let path = arguments.definitionsPath {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        tests = try SuiteTest.all(in: try JSONValue(parsing: data))
    } catch {
        printError("cannot read the definitions: \(error)")
        return 1
    }
    var selected = tests.filter(Profile.appliesToPrivateCache)
    if !arguments.only.isEmpty {
        let wanted = Set(arguments.only)
        selected = selected.filter { wanted.contains($0.id) }
        let unknown = wanted.subtracting(selected.map(\.id))
        if !unknown.isEmpty {
            printError(
                "not applicable to a private cache, or unknown: \(unknown.sorted().joined(separator: ", "))")
            return 2
        }
    }
    // Issue 28: NetLayer's private cache, one for the whole run (as a browser has one).
    let cache: HTTPCache
    if let directory = arguments.diskDirectory {
        do {
            cache = try await HTTPCache(
                directory: URL(fileURLWithPath: directory, isDirectory: true), maximumBytes: 64 << 20)
        } catch {
            printError("cannot open the disk cache: \(error)")
            return 1
        }
    } else {
        cache = HTTPCache(maximumBytes: 64 << 20)
    }
    let storage = arguments.diskDirectory == nil ? "in memory" : "on disk"
    printError(
        "running \(selected.count) of \(tests.count) tests against \(address.baseURL), the cache \(storage)")
    let run = SuiteRun(
        tests: selected, client: ClientUnderTest(server: address, cache: cache),
        server: SuiteServer(address: address), groupSize: arguments.groupSize)
    let results = await run.run { done, total in printError("  \(done)/\(total)") }
    do {
        let data = try ResultsFile.encode(results)
        if let path = arguments.outputPath {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } else {
            FileHandle.standardOutput.write(data)
        }
    } catch {
        printError("cannot write the results: \(error)")
        return 1
    }
    return 0
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

exit(await runMain())
