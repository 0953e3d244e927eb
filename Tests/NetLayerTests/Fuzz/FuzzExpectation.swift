/// What a server should read for a case DESIGN accepts, derived from DESIGN alone (§3–§8), never
/// from NetLayer's encoders.
struct FuzzExpectation: Sendable {
    enum Placement: String, Sendable {
        case query, form, json, multipart, body
    }

    /// What the request body should hold, as a server parses it.
    enum Body: Sendable {
        /// No body (query placement).
        case none
        /// Form pairs in order; an empty list may also arrive as no body.
        case form([FuzzPair])
        /// The JSON object; an empty object may also arrive as no body.
        case json(FuzzJSON)
        /// Field parts, then file parts, in order.
        case multipart([FuzzExpectedPart])
        /// The caller's bytes.
        case raw([UInt8])
    }

    /// The `Content-Type` field a server should see.
    enum ContentType: Sendable {
        case absent
        case exactly(String)
        /// `exactly` when there is a body, and either that or absent when the body is empty.
        case whenBody(String)
        /// `multipart/form-data` with a boundary parameter (always NetLayer's).
        case multipartFormData
        /// Either absent or one of these (DESIGN names no type for an untyped `.data` body).
        case absentOr([String])
    }

    var placement: Placement
    var method: String
    /// The decoded last path segment.
    var segment: String
    /// Decoded query pairs in order.
    var query: [FuzzPair]
    var body: Body
    var contentType: ContentType
    /// The `X-Fuzz…` fields as sent: the winning level's spelling, the value trimmed (§4).
    var headers: [FuzzPair]

    init(_ fuzzCase: FuzzCase) {
        method = fuzzCase.method
        segment = fuzzCase.expectedSegment
        let params = Self.merge(fuzzCase.targetParams, fuzzCase.params)
        let merged = Self.mergeHeaders(fuzzCase.headers)
        let callerType = merged.first { fuzzLowerASCII($0.name) == "content-type" }?.value
        headers = merged.filter { fuzzLowerASCII($0.name).hasPrefix("x-fuzz") }

        // §5, row by row.
        if let body = fuzzCase.body {
            placement = .body
            query = Self.pairs(params)
            self.body = .raw(body.data)
            if let type = callerType ?? body.contentType.map(fuzzTrimOWS) {
                contentType = .exactly(type)
            } else {
                contentType = .absentOr(["application/octet-stream"])
            }
        } else if !fuzzCase.files.isEmpty || fuzzCase.encoding == .multipart {
            placement = .multipart
            query = []
            let fields = Self.pairs(params).map {
                FuzzExpectedPart(
                    name: Self.multipartName($0.name), filename: nil, contentType: nil,
                    data: Array($0.value.utf8))
            }
            let files = fuzzCase.files.sorted { fuzzByteOrder($0.field, $1.field) }.map { file in
                FuzzExpectedPart(
                    name: Self.multipartName(file.field), filename: Self.multipartName(file.filename),
                    contentType: file.contentType.map(fuzzTrimOWS) ?? Self.guessedType(file.filename) ?? "",
                    data: file.data)
            }
            body = .multipart(fields + files)
            contentType = .multipartFormData
        } else if FuzzCase.queryMethods.contains(fuzzCase.method) {
            placement = .query
            query = Self.pairs(params)
            body = .none
            contentType = callerType.map { .exactly($0) } ?? .absent
        } else if fuzzCase.encoding == .json || callerType.map(Self.isJSONType) == true {
            placement = .json
            query = []
            body = .json(Self.json(.dictionary(params)))
            contentType = callerType.map { .exactly($0) } ?? .whenBody("application/json")
        } else {
            placement = .form
            query = []
            body = .form(Self.pairs(params))
            contentType = callerType.map { .exactly($0) } ?? .whenBody("application/x-www-form-urlencoded")
        }
    }

    // MARK: §4 merging

    /// Params merged per top-level key; the call level wins.
    static func merge(_ target: [FuzzEntry], _ call: [FuzzEntry]) -> [FuzzEntry] {
        target.filter { entry in !call.contains { fuzzSame($0.key, entry.key) } } + call
    }

    /// Header fields merged case-insensitively; the call level wins with its spelling; values
    /// trimmed of leading and trailing spaces and tabs.
    static func mergeHeaders(_ headers: [FuzzHeader]) -> [FuzzPair] {
        let call = headers.filter { $0.level == .call }
        let target = headers.filter {
            $0.level == .target && !call.map { fuzzLowerASCII($0.name) }.contains(fuzzLowerASCII($0.name))
        }
        return (target + call).map { FuzzPair(name: $0.name, value: fuzzTrimOWS($0.value)) }
    }

    // MARK: §6 form and query

    /// The flat (name, text) pairs of §6: keys in byte order at every level, `k[]` for scalars in
    /// arrays, `k[i]` for containers in arrays (indexes counted after dropping `nil`s), `k[sub]` for
    /// dictionaries, `nil` dropped, empty containers omitted.
    static func pairs(_ params: [FuzzEntry]) -> [FuzzPair] {
        var result: [FuzzPair] = []
        for entry in params.sorted(by: { fuzzByteOrder($0.key, $1.key) }) {
            flatten(entry.key, entry.value, into: &result)
        }
        return result
    }

    private static func flatten(_ name: String, _ value: FuzzValue, into result: inout [FuzzPair]) {
        switch value {
        case .null: return
        case .string(let text): result.append(FuzzPair(name: name, value: text))
        case .int(let number): result.append(FuzzPair(name: name, value: String(number)))
        case .double(let number): result.append(FuzzPair(name: name, value: String(describing: number)))
        case .bool(let flag): result.append(FuzzPair(name: name, value: flag ? "true" : "false"))
        case .array(let items):
            for (index, item) in items.filter({ !$0.isNull }).enumerated() {
                switch item {
                case .array, .dictionary: flatten("\(name)[\(index)]", item, into: &result)
                default: flatten("\(name)[]", item, into: &result)
                }
            }
        case .dictionary(let entries):
            for entry in entries.sorted(by: { fuzzByteOrder($0.key, $1.key) }) {
                flatten("\(name)[\(entry.key)]", entry.value, into: &result)
            }
        }
    }

    // MARK: §7 JSON

    /// The JSON a server should parse: `nil` dropped (in objects and arrays), empty containers kept.
    static func json(_ value: FuzzValue) -> FuzzJSON {
        switch value {
        case .null: return .null
        case .string(let text): return .string(text)
        case .int(let number): return .number(String(number))
        case .double(let number): return .number(String(describing: number))
        case .bool(let flag): return .bool(flag)
        case .array(let items): return .array(items.filter { !$0.isNull }.map(json))
        case .dictionary(let entries):
            return .object(entries.filter { !$0.value.isNull }.map { ($0.key, json($0.value)) })
        }
    }

    /// `application/json` or any `…+json`, parameters ignored, case-insensitive, after trimming.
    static func isJSONType(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        let essence = bytes[..<(bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count)]
        let type = fuzzTrimOWS(fuzzLowerASCII(String(decoding: essence, as: UTF8.self)))
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    // MARK: §8 multipart

    /// A name or filename as a parser that honours quoted-pair escapes reads it back: DESIGN escapes
    /// `"`, CR and LF as `%22`, `%0D`, `%0A` and doubles a backslash, so only those three change.
    static func multipartName(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "%22"
            case "\r": output += "%0D"
            case "\n": output += "%0A"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// The guessed type for the few extensions every guess table agrees on; nil when the fuzzer
    /// cannot know (and so never leaves the type to the guess).
    static func guessedType(_ filename: String) -> String? {
        guard let dot = filename.utf8.lastIndex(of: UInt8(ascii: ".")) else {
            return "application/octet-stream"
        }
        if dot == filename.utf8.startIndex { return nil }  // ".txt": a hidden file or an extension?
        let ext = fuzzLowerASCII(String(filename[filename.utf8.index(after: dot)...]))
        switch ext {
        case "txt": return "text/plain"
        case "png": return "image/png"
        case "json": return "application/json"
        case "pdf": return "application/pdf"
        default: return nil
        }
    }
}

/// One multipart part as a server should read it.
struct FuzzExpectedPart: Sendable {
    var name: String
    /// Nil for a field part.
    var filename: String?
    /// Nil for a field part (which carries no Content-Type).
    var contentType: String?
    var data: [UInt8]
}
