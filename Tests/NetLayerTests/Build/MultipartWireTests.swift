import Foundation
import NetLayer
import Testing

extension WireTests {
    /// Issue 10: the classes the outside fuzzing found, each pinned by a test (the generated fuzz
    /// test in FuzzTests covers the same ground at random).
    @Suite("Round-trip regressions")
    struct RoundTripRegressionTests {
        static let server = TestServerPool.make()

        @Test(arguments: [nil, Duration.seconds(10)])
        func headerValuesAreTrimmedAndWhitespaceOnlyValuesArriveEmpty(_ timeout: Duration?) async throws {
            // `["X-A": "\t"]` used to arrive as no `X-A` line at all.
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server, headers: ["X-Resource": " \t "]).target(path).makeExecutor(
                headers: ["X-A": "\t", "X-B": "  a b \t", "X-C": "", "X-D": "a\tb"], timeout: timeout
            ).execute()
            let received = try #require(server.requests(path: path).first)
            #expect(received.headerValues("X-A") == [""])
            #expect(received.headerValues("X-B") == ["a b"])
            #expect(received.headerValues("X-C") == [""])
            #expect(received.headerValues("X-D") == ["a\tb"])
            #expect(received.headerValues("X-Resource") == [""])
        }

        @Test func backslashesInMultipartNamesAndFilenamesAreDoubled() async throws {
            // `name="f\"` was read by werkzeug, Go and Python's email as an escaped quote.
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server).target(path).makeExecutor(
                method: .post, params: ["a\\": "v"],
                files: ["f\\": .data(Data("x".utf8), filename: "C:\\dir\\x\".txt")]
            ).execute()
            let body = try #require(server.requests(path: path).first?.bodyString)
            #expect(body.contains(#"Content-Disposition: form-data; name="a\\""#), "\(body)")
            #expect(
                body.contains(#"Content-Disposition: form-data; name="f\\"; filename="C:\\dir\\x%22.txt""#),
                "\(body)")
        }

        @Test func nilArrayElementsCloseUpTheIndexes() async throws {
            // `[nil, ["a": 1]]` left a gap: `k[1][a]=1` where JSON gives index 0.
            let server = try Self.server.get()
            let path = uniquePath()
            let value = ParamValue.array([.null, ["a": 1], .null, .array([2, .null, 3])])
            try await TestAPI(server: server).target(path).makeExecutor(params: [
                "k": value, "s": ParamValue.array([.null, "x"]),
            ])
            .execute()
            let query = try #require(server.requests(path: path).first?.rawQuery)
            #expect(query == "k%5B0%5D%5Ba%5D=1&k%5B1%5D%5B%5D=2&k%5B1%5D%5B%5D=3&s%5B%5D=x")
            try await TestAPI(server: server).target(path).makeExecutor(
                method: .post, params: ["k": value], placement: .json
            )
            .execute()
            #expect(server.requests(path: path).last?.bodyString == #"{"k":[{"a":1},[2,3]]}"#)
        }

        @Test func emptyContainersAreOmittedFromQueriesAndFormsButKeptInJSON() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let params: Params = [
                "e": [String](), "d": [String: Int](), "n": [[String]()] as [[String]], "x": 1,
            ]
            try await TestAPI(server: server).target(path).makeExecutor(params: params).execute()
            #expect(server.requests(path: path).first?.rawQuery == "x=1")
            try await TestAPI(server: server).target(path).makeExecutor(method: .post, params: params)
                .execute()
            #expect(server.requests(path: path).last?.bodyString == "x=1")
            try await TestAPI(server: server).target(path).makeExecutor(
                method: .post, params: params, placement: .json
            )
            .execute()
            #expect(server.requests(path: path).last?.bodyString == #"{"d":{},"e":[],"n":[[]],"x":1}"#)
        }
    }
}
