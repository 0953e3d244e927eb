import Foundation
import NetLayer

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Conformance {
    static func main() async {
        let arguments = CommandLine.arguments
        let fuzz = arguments.count >= 4 && arguments[2] == "fuzz"
        guard arguments.count == 2 || (fuzz && arguments.count <= 6) else {
            FileHandle.standardError.write(
                Data(
                    ("usage: httpbin-conformance HOST:PORT   (for example 127.0.0.1:8123)\n"
                        + "       httpbin-conformance HOST:PORT fuzz CASES [SEED [CASE]]   (random seed when absent)\n")
                        .utf8))
            exit(2)
        }
        var address = arguments[1]
        for scheme in ["http://", "https://"] where address.hasPrefix(scheme) {
            address.removeFirst(scheme.count)
        }
        while address.hasSuffix("/") { address.removeLast() }
        if fuzz {
            guard let count = Int(arguments[3]), count >= 1,
                arguments.count < 5 || arguments[4].isEmpty || UInt64(arguments[4]) != nil,
                arguments.count < 6 || arguments[5].isEmpty || Int(arguments[5]) != nil
            else {
                FileHandle.standardError.write(Data("fuzz: CASES, SEED and CASE must be numbers\n".utf8))
                exit(2)
            }
            let seed = arguments.count >= 5 ? UInt64(arguments[4]) : nil
            let only = arguments.count >= 6 ? Int(arguments[5]) : nil
            exit(await runFuzz(address: address, count: count, seed: seed, only: only))
        }

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
