import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the merged params of a call ended up.
enum ResolvedPlacement: Sendable {
    case query, form, json, multipart
}

/// A request ready to send, plus what debug output needs to describe it.
struct PreparedRequest: Sendable {
    /// The request value handed to the transport.
    var request: TransportRequest
    var method: HTTPMethod
    var url: URL
    var headers: HeaderFields
    /// The merged params, sorted by key in byte order, one entry per key.
    var paramEntries: FormEncoder.Entries
    /// The merged params (made when asked for: only debug output and errors need them).
    var params: [String: ParamValue] { FormEncoder.dictionary(paramEntries) }
    var placement: ResolvedPlacement
    /// The body when it is in memory (for printing); `nil` for none or a file-backed body.
    var body: Data?
    var files: [String: FilePart]
    /// The multipart text fields as sent (names unescaped), for printing; empty otherwise.
    var multipartFields: [(name: String, value: String)] = []
    /// The checked and clamped limits of this call.
    var timeouts: Timeouts
    /// Every header block sent on the wire for this call, after the interceptors and the
    /// authenticator (a replay's refreshed credentials included): their secret values are secrets
    /// of the call too. Empty until the call is sent through its chain.
    var sentHeaderBlocks: [HeaderFields] = []
}

extension CallSpec {
    /// Builds the request: merges the three levels, fills the path, places and encodes params and
    /// body. Pure: runs on the calling task and touches no network.
    /// - Throws: ``NetLayerError`` for anything that cannot be sent; nothing is sent then.
    func prepare() throws(NetLayerError) -> PreparedRequest {
        // A call that adds nothing to its target and sends its params in the query (`GET /books`):
        // its URL and headers were worked out with the target. Every method that sends its params in
        // the query is a registered one, so it needs no token check.
        if let known = defaults.queryCall, absoluteURL == nil, subpath.isEmpty, pathParts.isEmpty,
            headers.isEmpty, params.isEmpty, body == nil, files.isEmpty, placement == .automatic,
            targetProblem == nil, resource.rateLimitProblem == nil, method.sendsParamsInQuery
        {
            var request = TransportRequest(method: method, url: known.url, headerFields: known.headers)
            request.isChecked = true
            return PreparedRequest(
                request: request,
                method: method, url: known.url, headers: known.headers, paramEntries: defaults.params,
                placement: .query, body: nil, files: [:],
                timeouts: try Timeouts.checked(idle: timeout, total: totalDeadline))
        }
        let base = try resource.base.get()
        if let problem = resource.rateLimitProblem { throw problem }
        guard method.isValid else { throw .invalidMethod(method) }
        let timeouts = try Timeouts.checked(idle: timeout, total: totalDeadline)
        // The target's path as it is: its checks, fill and URL were worked out with the target.
        let plain = absoluteURL == nil && subpath.isEmpty && pathParts.isEmpty
        let filledPath: String
        if plain {
            filledPath = try defaults.plainPath.get()
        } else {
            if subpath.utf8.contains(UInt8(ascii: "#")) {
                throw .invalidURL(part: "subpath", value: subpath, reason: "it contains '#'")
            }
            try FollowURL.refuseAbsolute(subpath, part: "subpath")
            if absoluteURL == nil {
                try FollowURL.refuseAbsolute(path, part: "path")
                filledPath = try PathTemplate.fill(path, with: pathParts)
            } else {
                filledPath = try PathTemplate.fill("", with: pathParts)  // any path part is unknown here
            }
        }
        if let targetProblem {
            _ = try resource.defaultHeaderFields.get()
            throw targetProblem
        }
        var headerFields = try defaults.headers.get()
        if !headers.isEmpty {
            // One allocation for the call's fields and a Content-Type NetLayer may add.
            headerFields.reserveCapacity(headerFields.count + headers.count + 1)
            try headerFields.merge(headers)
        }
        // A followed URL that carries a query came from the server with its params in it; the
        // resource's and target's are not added a second time.
        let merged = FormEncoder.merged(base: absoluteURL?.query != nil ? [] : defaults.params, call: params)
        try ParamCheck.numbers(in: merged)
        let contentType = headerFields["Content-Type"]
        let resolved = try placeParams(contentType: contentType)
        let form = FormEncoder(options: resource.options.paramStyle)
        let hasParams = FormEncoder.hasValues(merged)

        var bodyData: Data?
        var fileBody: RequestBody?
        var multipartFields: [(name: String, value: String)] = []
        switch resolved {
        case .query:
            if let body {
                let encoded = try encode(body, headers: &headerFields)
                bodyData = encoded.inMemoryBytes
                if bodyData == nil { fileBody = encoded }
            }
        case .form:
            if hasParams {
                var text: [UInt8] = []
                if form.append(sorted: merged, to: &text) {
                    bodyData = Data(text)
                    // An explicit `placement: .form` beats a JSON type set at some level: the label must
                    // match the bytes.
                    if contentType == nil || (placement == .form && contentType.map(MediaType.isJSON) == true)
                    {
                        headerFields.set("Content-Type", MediaType.form)
                    }
                }
            }
        case .json:
            if hasParams {
                bodyData = try JSONParams.encode(
                    FormEncoder.dictionary(merged), nulls: resource.options.paramStyle.nulls)
                // Likewise an explicit `placement: .json` replaces a non-JSON type.
                if !(contentType.map(MediaType.isJSON) ?? false) {
                    headerFields.set("Content-Type", MediaType.json)
                }
            }
        case .multipart:
            let encoder = MultipartEncoder()
            multipartFields = form.pairs(sorted: merged)
            let encoded = try encoder.body(fields: multipartFields, files: files)
            bodyData = encoded.inMemoryBytes
            if bodyData == nil { fileBody = encoded }
            headerFields.set("Content-Type", encoder.contentType)
        }

        let url: URL
        if let absoluteURL {
            let query = resolved == .query ? form.encode(sorted: merged) : ""
            url = try FollowURL.url(absoluteURL, base: base, query: query)
        } else if plain && params.isEmpty,
            let known = resolved == .query ? defaults.plainQueryURL : defaults.plainURL
        {
            url = try known.get()
        } else if resolved == .query && hasParams {
            // The query is written straight after the path, and the URL parsed once.
            url = try URLBuilder.url(
                base: base, path: filledPath, params: merged, form: form, cache: resource.parsedURLs)
        } else {
            url = try URLBuilder.url(base: base, path: filledPath, query: "", cache: resource.parsedURLs)
        }
        var request = TransportRequest(
            method: method, url: url, headerFields: headerFields,
            body: fileBody ?? bodyData.map(RequestBody.init))
        // Built from checked parts: the method is a token, the URL http(s) with a host, every
        // header field validated when merged.
        request.isChecked = true
        return PreparedRequest(
            request: request, method: method, url: url, headers: headerFields, paramEntries: merged,
            placement: resolved, body: bodyData, files: files, multipartFields: multipartFields,
            timeouts: timeouts)
    }

    private func placeParams(contentType: String?) throws(NetLayerError) -> ResolvedPlacement {
        let wantsMultipart =
            !files.isEmpty || placement == .multipart || (contentType.map(MediaType.isMultipart) ?? false)
        if body != nil {
            if !files.isEmpty || placement == .multipart {
                throw .unsupportedBody(
                    "a call cannot have both `body:` and multipart files; put the data in `files:` instead")
            }
            if method.forbidsBody {
                throw .unsupportedBody("\(method) cannot carry a body; use POST, PUT or PATCH")
            }
            return .query
        }
        if wantsMultipart {
            if method.forbidsBody {
                throw .unsupportedBody("\(method) cannot carry a multipart body; use POST, PUT or PATCH")
            }
            return .multipart
        }
        if placement == .query || method.forbidsBody { return .query }
        if placement == .json { return .json }
        if placement == .form { return .form }
        if method.sendsParamsInQuery { return .query }
        if let contentType, MediaType.isJSON(contentType) { return .json }
        if let contentType, MediaType.isForm(contentType) { return .form }
        return resource.options.bodyParams == .json ? .json : .form
    }

    private func encode(_ body: Body, headers: inout HeaderFields) throws(NetLayerError) -> RequestBody {
        let ownType: String?
        let data: RequestBody
        switch body.storage {
        case .data(let bytes, let contentType):
            data = RequestBody(bytes)
            // Without a type, Linux URLSession labels a POST body as a form; say what it is instead.
            ownType = contentType ?? MediaType.octetStream
        case .json(let encode):
            do {
                data = RequestBody(try encode(resource.options.encoder))
            } catch {
                throw .encodingFailed("the JSON body could not be encoded: \(error)", underlying: error)
            }
            ownType = MediaType.json
        case .file(let url, let contentType, let range):
            data = try RequestBody.file(url, range: range)
            ownType = contentType ?? MediaType.guess(forFilename: url.lastPathComponent)
        }
        if headers["Content-Type"] == nil, let ownType {
            headers.set("Content-Type", try HeaderFields.validatedValue(ownType, name: "Content-Type"))
        }
        return data
    }
}

/// Reads a file a caller named, refusing what is not a regular local file.
enum FileRead {
    /// - Throws: ``NetLayerError`` `.encodingFailed` for a URL that is not a `file:` URL (reading
    ///   `https://…` would fetch it synchronously, outside every limit), for anything but a regular
    ///   file (a FIFO or `/dev/zero` never ends), and for an unreadable file.
    static func regularFileSize(_ url: URL, what: String) throws(NetLayerError) -> Int64 {
        guard url.isFileURL else {
            throw .encodingFailed(
                "\(what) \(Redaction.stripCredentials(url).debugDescription) is not a file URL")
        }
        let path = url.resolvingSymlinksInPath().path
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes?[.size] as? NSNumber)?.int64Value,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw .encodingFailed("\(what) at \(url.path) is not a readable regular file")
        }
        return size
    }
}

/// Checks caller-supplied values inside params before any encoder walks them.
enum ParamCheck {
    /// The deepest nesting of arrays and dictionaries accepted. Real APIs use a handful of levels;
    /// a value built from untrusted input could nest deep enough to overflow the stack of every
    /// recursive encoder.
    static let maximumDepth = 64

    /// How `Date.paramValue` marks a date no ISO 8601 text can carry (not a JSON number, so it is
    /// refused with the others).
    static let unwritableDate = "a date outside the years 1583–9999: "

    /// - Throws: ``NetLayerError`` `.encodingFailed` for a number that is not finite (`nan`, `inf`):
    ///   no query, form, multipart or JSON can carry it; and for nesting deeper than
    ///   ``maximumDepth``.
    static func numbers(in params: [String: ParamValue]) throws(NetLayerError) {
        for (key, value) in params { try check(value, path: key, depth: 1) }
    }

    /// The same check over merged entries; the path of a value is only spelled out for the error.
    static func numbers(in entries: FormEncoder.Entries) throws(NetLayerError) {
        for index in entries.indices {
            switch entries[index].value {
            case .null, .bool, .string: continue
            case .number(let text) where JSONParams.isJSONNumber(text): continue
            case .number, .array, .dictionary:
                if isSendable(entries[index].value, depth: 1) { continue }
            }
            try check(entries[index].value, path: entries[index].key, depth: 1)
        }
    }

    /// Whether ``check(_:path:depth:)`` would pass, without naming anything.
    private static func isSendable(_ value: ParamValue, depth: Int) -> Bool {
        switch value {
        case .number(let text):
            return JSONParams.isJSONNumber(text)
        case .array(let items):
            if depth > maximumDepth { return false }
            for item in items {
                switch item {
                case .null, .bool, .string: continue
                case .number(let text) where JSONParams.isJSONNumber(text): continue
                case .number, .array, .dictionary: if !isSendable(item, depth: depth + 1) { return false }
                }
            }
            return true
        case .dictionary(let entries):
            if depth > maximumDepth { return false }
            for item in entries.values where !isSendable(item, depth: depth + 1) { return false }
            return true
        case .null, .bool, .string:
            return true
        }
    }

    private static func check(_ value: ParamValue, path: String, depth: Int) throws(NetLayerError) {
        switch value {
        case .number(let text):
            if text.hasPrefix(unwritableDate) {
                throw .encodingFailed("param \(path) is \(text), which cannot be written as ISO 8601")
            }
            if !JSONParams.isJSONNumber(text) {
                throw .encodingFailed(
                    "param \(path) is \(text), which is not a finite number and cannot be sent")
            }
        case .array(let items):
            try checkDepth(depth, path: path)
            for (index, item) in items.enumerated() {
                try check(item, path: "\(path)[\(index)]", depth: depth + 1)
            }
        case .dictionary(let entries):
            try checkDepth(depth, path: path)
            for (key, item) in entries { try check(item, path: "\(path)[\(key)]", depth: depth + 1) }
        case .null, .bool, .string:
            return
        }
    }

    private static func checkDepth(_ depth: Int, path: String) throws(NetLayerError) {
        if depth > maximumDepth {
            throw .encodingFailed(
                "param \(path.prefix(80))… nests arrays and dictionaries deeper than \(maximumDepth) levels")
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
