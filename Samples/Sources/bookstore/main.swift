import BookstoreServer
import Foundation

// The NetLayer sample: start a small bookstore API on 127.0.0.1, then use it through NetLayer the
// way an app would. Exits 0 when every step checked out, 1 with the reason otherwise.
//
//   swift run --package-path Samples bookstore [--verbose] [--transport async-http-client]
//
// --verbose turns on NetLayer's debug printing for every request of the main client.
// --transport async-http-client runs the main client over AsyncHTTPClient (the companion package
// in Transports/AsyncHTTPClient) instead of URLSession: the same story, the same checks.

let verbose = CommandLine.arguments.contains("--verbose")
let transportChoice = SampleTransport(arguments: CommandLine.arguments)
let token = "sample-\(UUID().uuidString.prefix(8).lowercased())"

// Whatever happens, never hang: the whole story takes about half a minute.
Task.detached {
    try await Task.sleep(for: .seconds(90))
    Console.fail("the sample did not finish within 90 s")
    exit(1)
}

let server: BookstoreServer
do {
    server = try await BookstoreServer.start(token: token)
} catch {
    Console.fail("the bookstore server did not start: \(error)")
    exit(1)
}
print("Bookstore API listening on http://127.0.0.1:\(server.port)/v1 (bearer token, 5 requests/s)")
print("The main client calls it over \(transportChoice.name).")

let story = Story(server: server, token: token, verbose: verbose, transport: transportChoice.transport)
let started = ContinuousClock.now
do {
    try await story.run()
} catch {
    await server.stop()
    Console.fail("\(story.currentStep) failed: \(error)")
    exit(1)
}
let elapsed = ContinuousClock.now - started
await transportChoice.shutdown()
await server.stop()

print("\n══ Summary (\(elapsed.inSeconds), all checks passed)")
for line in story.summary {
    print("   • \(line)")
}
