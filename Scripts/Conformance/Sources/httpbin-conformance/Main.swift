import Foundation
import NetLayer

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Conformance {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            FileHandle.standardError.write(
                Data("usage: httpbin-conformance HOST:PORT   (for example 127.0.0.1:8123)\n".utf8))
            exit(2)
        }
        var address = arguments[1]
        for scheme in ["http://", "https://"] where address.hasPrefix(scheme) {
            address.removeFirst(scheme.count)
        }
        while address.hasSuffix("/") { address.removeLast() }

        let temp = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-conformance-\(UUID().uuidString)")
        let raw: RawCapture
        do {
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
            raw = try RawCapture()
        } catch {
            say("cannot start: \(error)")
            exit(2)
        }
        defer { try? FileManager.default.removeItem(at: temp) }

        let env = Env(address: address, raw: raw, temp: temp)
        var passed = 0
        var failed = 0
        for testCase in allCases(env) {
            let check = Check()
            do {
                try await testCase.run(check)
            } catch {
                check.fail("expected a response got error \(error)")
            }
            if check.problems.isEmpty {
                passed += 1
                say("PASS \(testCase.name)")
            } else {
                failed += 1
                var line = "FAIL \(testCase.name): " + check.problems.joined(separator: "; ")
                if !check.evidence.isEmpty { line += " || " + check.evidence.joined(separator: " || ") }
                say(line)
            }
        }
        say("\(passed) passed, \(failed) failed")
        try? FileManager.default.removeItem(at: temp)
        exit(failed == 0 ? 0 : 1)
    }
}

/// Writes one line to standard output at once (unbuffered, so lines interleave correctly with the
/// script's own output and survive an early exit).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
