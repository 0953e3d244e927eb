import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// Every row of the design's placement table (§5), asserted on what the server received.
    @Suite("Placement of params and body, on the wire")
    struct PlacementWireTests {
        static let server = TestServerPool.make()

        private func received(_ path: String) throws -> RecordedRequest {
            let server = try Self.server.get()
            let requests = server.requests(path: path)
            #expect(requests.count == 1, "expected exactly one request at \(path), got \(requests.count)")
            return try #require(requests.last)
        }

        @Test(arguments: [HTTPMethod.get, .head, .delete, .options])
        func queryMethodsSendParamsInQueryWithoutBody(_ method: HTTPMethod) async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath() + "-\(method)"
            try await api.target(path).makeExecutor(method: method, params: ["b": 2, "a": "x y"]).execute()
            let request = try received(path)
            #expect(request.method == method.rawValue)
            #expect(request.rawQuery == "a=x%20y&b=2")
            #expect(request.body.isEmpty)
            #expect(request.header("Content-Type") == nil)
        }

        @Test(arguments: [HTTPMethod.post, .put, .patch])
        func bodyMethodsSendFormBody(_ method: HTTPMethod) async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath() + "-\(method)"
            try await api.target(path).makeExecutor(method: method, params: ["tags": ["a", "b"], "n": 1])
                .execute()
            let request = try received(path)
            #expect(request.method == method.rawValue)
            #expect(request.rawQuery == nil)
            #expect(request.bodyString == "n=1&tags%5B%5D=a&tags%5B%5D=b")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(request.header("Content-Length") == "\(request.body.count)")
        }

        @Test func resourceLevelJSONContentTypeMakesAJSONBodyAndIsNotOverridden() async throws {
            // swift-net-layer sent a form content type over a resource-level JSON one (case-sensitive check).
            let api = TestAPI(server: try Self.server.get(), headers: ["content-type": "application/json"])
            let path = uniquePath()
            try await api.target(path).makeExecutor(method: .post, params: ["a": 1, "b": ["c": true]])
                .execute()
            let request = try received(path)
            #expect(request.bodyString == #"{"a":1,"b":{"c":true}}"#)
            #expect(request.headerValues("Content-Type") == ["application/json"])
            #expect(request.rawQuery == nil)
        }

        @Test func plusJSONContentTypeCountsAsJSON() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path, headers: ["Content-Type": "application/vnd.api+json"])
                .makeExecutor(method: .patch, params: ["a": "b"]).execute()
            let request = try received(path)
            #expect(request.bodyString == #"{"a":"b"}"#)
            #expect(request.header("Content-Type") == "application/vnd.api+json")
        }

        @Test func jsonEncodingOptionMakesAJSONBody() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(method: .put, params: ["x": [1, 2]], placement: .json)
                .execute()
            let request = try received(path)
            #expect(request.bodyString == #"{"x":[1,2]}"#)
            #expect(request.header("Content-Type") == "application/json")
        }

        @Test(arguments: [HTTPMethod.post, .put, .delete])
        func filesMakeAMultipartBodyWithParamsAsFields(_ method: HTTPMethod) async throws {
            let api = TestAPI(server: try Self.server.get(), params: ["locale": "en"])
            let path = uniquePath() + "-\(method)"
            try await api.target(path).makeExecutor(
                method: method, params: ["caption": "hi"],
                files: ["file": .data(Data("abc".utf8), filename: "a.txt")]
            ).execute()
            let request = try received(path)
            let contentType = try #require(request.header("Content-Type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
            let expected =
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"locale\"\r\n\r\nen\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nabc\r\n"
                + "--\(boundary)--\r\n"
            #expect(request.bodyString == expected)
            #expect(request.rawQuery == nil)
            #expect(request.header("Content-Length") == "\(request.body.count)")
        }

        @Test func multipartEncodingWithoutFilesAndCallerContentTypeIsReplaced() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path, headers: ["Content-Type": "multipart/form-data"])
                .makeExecutor(method: .post, params: ["a": "1"]).execute()
            let request = try received(path)
            let contentType = try #require(request.header("Content-Type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary=NetLayer-"))
            #expect(request.bodyString.contains("name=\"a\"\r\n\r\n1\r\n"))
        }

        @Test func fileFromDiskIsSentByteForByte() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "netlayer-\(UUID().uuidString).png")
            let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) })
            try bytes.write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            try await api.target(path).makeExecutor(method: .post, files: ["cover": .file(url)]).execute()
            let request = try received(path)
            let header =
                "Content-Disposition: form-data; name=\"cover\"; filename=\"\(url.lastPathComponent)\"\r\nContent-Type: image/png\r\n\r\n"
            let headerRange = try #require(request.body.range(of: Data(header.utf8)))
            #expect(request.body[headerRange.upperBound...].prefix(bytes.count) == bytes)
        }

        @Test func explicitDataBodyIsSentAsIsWithParamsInQuery() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            let payload = Data([0x00, 0xFF, 0x0D, 0x0A, 0x41])
            try await api.target(path).makeExecutor(
                method: .post, params: ["q": "1"], body: .data(payload, contentType: "application/x-thing")
            ).execute()
            let request = try received(path)
            #expect(request.body == payload)
            #expect(request.rawQuery == "q=1")
            #expect(request.header("Content-Type") == "application/x-thing")
        }

        @Test func jsonBodyUsesResourceEncoderAndKeepsCallerContentType() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(
                method: .post, headers: ["Content-Type": "application/merge-patch+json"], params: ["v": 2],
                body: .json(NewBook(title: "Dune", tags: ["sf"]))
            ).execute()
            let request = try received(path)
            #expect(request.bodyString == #"{"tags":["sf"],"title":"Dune"}"#)
            #expect(request.header("Content-Type") == "application/merge-patch+json")
            #expect(request.rawQuery == "v=2")
        }

        @Test func jsonBodyDefaultsToApplicationJSON() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(method: .put, body: .json(["k": "v"])).execute()
            let request = try received(path)
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.bodyString == #"{"k":"v"}"#)
        }

        @Test func callerContentTypeWinsOverFormDefaultButParamsStayForm() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(
                method: .post, headers: ["Content-Type": "text/plain"], params: ["a": "b"]
            ).execute()
            let request = try received(path)
            #expect(request.header("Content-Type") == "text/plain")
            #expect(request.bodyString == "a=b")
        }

        @Test func paramsAreNeverSentTwice() async throws {
            // swift-net-layer put POST and DELETE params in both the query and the body.
            let api = TestAPI(server: try Self.server.get(), params: ["r": 1])
            for method in [HTTPMethod.post, .delete] {
                let path = uniquePath() + "-\(method)"
                try await api.target(path, params: ["t": 2]).makeExecutor(method: method, params: ["c": 3])
                    .execute()
                let request = try received(path)
                let inQuery = request.rawQuery ?? ""
                let inBody = request.bodyString
                #expect((inQuery + "|" + inBody).components(separatedBy: "c=3").count == 2)
                #expect((inQuery.isEmpty) != (inBody.isEmpty))
            }
        }

        @Test func getWithBodyThrowsAndSendsNothing() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath()
            do {
                try await api.target(path).makeExecutor(method: .get, body: .data(Data("x".utf8))).execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .unsupportedBody)
            }
            do {
                try await api.target(path).makeExecutor(
                    method: .get, files: ["f": .data(Data(), filename: "f")]
                ).execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .unsupportedBody)
            }
            #expect(server.requests(path: path).isEmpty)
        }

        @Test func bodyAndFilesTogetherThrow() async throws {
            let api = TestAPI(server: try Self.server.get())
            let executor = api.target(uniquePath()).makeExecutor(
                method: .post, body: .data(Data()), files: ["f": .data(Data(), filename: "f")])
            await #expect(throws: NetLayerError.self) { try await executor.execute() }
        }

        @Test func postWithoutParamsSendsNoBody() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            let none: String? = nil
            try await api.target(path).makeExecutor(method: .post, params: ["x": none]).execute()
            let request = try received(path)
            #expect(request.body.isEmpty)
            #expect(request.header("Content-Type") == nil)
        }
        @Test func dataBodyWithoutTypeIsLabelledOctetStream() async throws {
            // Found by the httpbin check: Linux URLSession labelled an untyped POST body as a form.
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(method: .post, body: .data(Data("a=1&b=2".utf8)))
                .execute()
            let request = try received(path)
            #expect(request.headerValues("Content-Type") == ["application/octet-stream"])
            #expect(request.bodyString == "a=1&b=2")
        }

        @Test func explicitFormEncodingReplacesAResourceJSONType() async throws {
            let api = TestAPI(server: try Self.server.get(), headers: ["Content-Type": "application/json"])
            let path = uniquePath()
            try await api.target(path).makeExecutor(method: .post, params: ["a": 1], placement: .form)
                .execute()
            let request = try received(path)
            #expect(request.headerValues("Content-Type") == ["application/x-www-form-urlencoded"])
            #expect(request.bodyString == "a=1")
        }

        @Test func explicitJSONEncodingReplacesAFormType() async throws {
            let api = TestAPI(server: try Self.server.get())
            let path = uniquePath()
            try await api.target(path).makeExecutor(
                method: .post, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                params: ["a": 1], placement: .json
            ).execute()
            let request = try received(path)
            #expect(request.headerValues("Content-Type") == ["application/json"])
            #expect(request.bodyString == #"{"a":1}"#)
        }
    }
}
