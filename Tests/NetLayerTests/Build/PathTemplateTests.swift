import Testing

@testable import NetLayer

@Suite("Path template")
struct PathTemplateTests {
    @Test func colonTokenIsReplaced() throws {
        #expect(try PathTemplate.fill("/users/:id", with: ["id": 42]) == "/users/42")
    }

    @Test func keysMayBeGivenWithColon() throws {
        #expect(
            try PathTemplate.fill("/users/:id/books/:book_id", with: [":id": 1, "book_id": "b"])
                == "/users/1/books/b")
    }

    @Test func braceTokenWorksAnywhereInASegment() throws {
        #expect(try PathTemplate.fill("/files/{name}.json", with: ["name": "report"]) == "/files/report.json")
        #expect(try PathTemplate.fill("/a/pre{x}post/{y}", with: ["x": "1", "y": 2]) == "/a/pre1post/2")
    }

    @Test func colonTokenEndsAtNonIdentifierCharacter() throws {
        // The `:generate` suffix is literal: it is not at the start of a segment.
        #expect(
            try PathTemplate.fill("/models/:model:generate", with: ["model": "gemini-pro"])
                == "/models/gemini-pro:generate")
    }

    @Test func literalColonSegmentsAreKept() throws {
        #expect(try PathTemplate.fill("/v1/x:generate/:id", with: ["id": 7]) == "/v1/x:generate/7")
    }

    @Test func valuesAreEncodedAsOneSegment() throws {
        #expect(try PathTemplate.fill("/files/:name", with: ["name": "a/b"]) == "/files/a%2Fb")
        #expect(try PathTemplate.fill("/files/:name", with: ["name": "x?admin=1"]) == "/files/x%3Fadmin=1")
        #expect(try PathTemplate.fill("/files/:name", with: ["name": "a b#c%d"]) == "/files/a%20b%23c%25d")
        #expect(try PathTemplate.fill("/files/:name", with: ["name": "é"]) == "/files/%C3%A9")
    }

    @Test func subDelimsColonAndAtStayLiteral() throws {
        #expect(
            try PathTemplate.fill("/u/:v", with: ["v": "a:b@c!$&'()*+,;=-._~"]) == "/u/a:b@c!$&'()*+,;=-._~")
    }

    @Test func dotSegmentsAndEmptyValuesAreRejected() {
        for bad in [".", "..", ""] {
            #expect(throws: NetLayerError.self) { try PathTemplate.fill("/files/:name", with: ["name": bad]) }
            do {
                _ = try PathTemplate.fill("/files/:name", with: ["name": bad])
            } catch {
                #expect(error.code == .invalidPathPart)
            }
        }
    }

    @Test func missingValueThrowsNamingTheKeys() {
        do {
            _ = try PathTemplate.fill("/users/:id/books/{book}", with: [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingPathParts)
            #expect(error.keys == ["book", "id"])
        }
    }

    @Test func nilValueCountsAsMissing() {
        let id: Int? = nil
        #expect(throws: NetLayerError.self) { try PathTemplate.fill("/users/:id", with: ["id": id]) }
    }

    @Test func unknownKeyThrowsNamingTheKeys() {
        do {
            _ = try PathTemplate.fill("/users/:id", with: ["id": 1, "other": 2])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unknownPathParts)
            #expect(error.keys == ["other"])
        }
    }

    @Test func substitutionHappensExactlyOnce() throws {
        // A value that looks like a token is not substituted again.
        #expect(try PathTemplate.fill("/a/:x/:y", with: ["x": ":y", "y": "{x}"]) == "/a/:y/%7Bx%7D")
    }

    @Test func queryInTemplateIsKeptVerbatim() throws {
        #expect(
            try PathTemplate.fill("/search/:kind?fixed=1&x=:notatoken", with: ["kind": "books"])
                == "/search/books?fixed=1&x=:notatoken")
    }

    @Test func arrayValueIsRejected() {
        #expect(throws: NetLayerError.self) { try PathTemplate.fill("/a/:id", with: ["id": [1, 2]]) }
    }
}
