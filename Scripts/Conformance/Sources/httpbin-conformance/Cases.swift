import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything the cases share.
struct Env {
    let address: String
    let raw: RawCapture
    let temp: URL

    var httpbin: Httpbin { Httpbin(address: address) }

    /// Writes a temporary file and returns its URL.
    func file(_ name: String, _ data: Data) throws -> URL {
        let url = temp.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}

func allCases(_ env: Env) -> [Case] {
    queryCases(env) + optionCases(env) + formCases(env) + jsonCases(env) + bodyCases(env)
        + multipartCases(env)
        + mergeCases(env) + pathCases(env) + rawCases(env) + transferCases(env) + resilienceCases(env)
}

// MARK: - §5/§6 params in the query

func queryCases(_ env: Env) -> [Case] {
    [
        Case(
            name:
                "GET /get query: arrays, nested, arrays of dicts, unicode, reserved, empty, bool, numbers, nil dropped"
        ) { c in
            let reply = try await c.echo(env.httpbin.endpoint(for: .get).call(.get, params: Fixture.params))
            c.equal("args", Fixture.flat, reply["args"])
            c.header(reply, "Content-Type", is: nil)
        },
        Case(name: "GET /anything query: '+' survives (sent %2B), space is not '+'") { c in
            let reply = try await c.echo(
                env.httpbin.anything().call(.get, params: ["p": "a+b", "q": "+", "r": "a b", "s": "+ +"]))
            c.equal("args", ["p": "a+b", "q": "+", "r": "a b", "s": "+ +"], reply["args"])
            c.noBody(reply)
        },
        Case(name: "GET /anything query: nil values (top level and in arrays) are left out") { c in
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .get,
                    params: [
                        "keep": "1", "gone": nil as Int?, "holes": [nil, nil] as [String?],
                        "d": ["n": nil as String?],
                    ]))
            c.equal("args", ["keep": "1"], reply["args"])
        },
        Case(name: "GET /anything query: a ?query in the target path is kept and params appended") { c in
            let reply = try await c.echo(
                env.httpbin.at("/anything?fixed=1&x=%2B").call(
                    .get, params: ["p": "v w", "arr": ["1", "2"]]))
            c.equal("args", ["fixed": "1", "x": "+", "p": "v w", "arr[]": ["1", "2"]], reply["args"])
        },
        Case(name: "POST /post placement: .query: params in the query, no body") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .post).call(.post, params: Fixture.params, placement: .query))
            c.equal("args", Fixture.flat, reply["args"])
            c.noBody(reply)
        },
        Case(name: "DELETE /delete: params go to the query, no body") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .delete).call(.delete, params: Fixture.params))
            c.equal("args", Fixture.flat, reply["args"])
            c.noBody(reply)
        },
    ]
}

// MARK: - §6 encoding options, §2 URL joins

func optionCases(_ env: Env) -> [Case] {
    let params: Params = ["k": ["a", "b"], "t": true, "f": false, "o": [["id": 1] as ParamValue]]
    return [
        Case(name: "GET /anything arrays: .noBrackets gives k=a&k=b, bools: .numeric gives 1/0") { c in
            let resource = Httpbin(
                address: env.address, paramStyle: ParamStyle(arrays: .noBrackets, bools: .numeric))
            let reply = try await c.echo(resource.anything().call(.get, params: params))
            c.equal("args", ["k": ["a", "b"], "t": "1", "f": "0", "o[0][id]": "1"], reply["args"])
        },
        Case(name: "POST /anything form with arrays: .indexed gives k[0]=a&k[1]=b") { c in
            let resource = Httpbin(address: env.address, paramStyle: ParamStyle(arrays: .indexed))
            let reply = try await c.echo(resource.anything().call(.post, params: params))
            c.equal(
                "form", ["k[0]": "a", "k[1]": "b", "t": "true", "f": "false", "o[0][id]": "1"], reply["form"])
            c.noArgs(reply)
        },
        Case(name: "URL: domain with a base path + version + path, one '/' at each join, trailing '/' kept") {
            c in
            let resource = Resource(protocol: .http, domain: env.address + "/anything/", version: "/v1/")
            let target = Echo(resource: resource, path: "/books/")
            let reply = try await c.echo(target.call(.get, params: ["p": "1"]))
            c.equal("decoded path", "/anything/v1/books/", .string(c.decodedPath(reply)))
            c.equal("args", ["p": "1"], reply["args"])
        },
    ]
}

// MARK: - §5/§6 params as a form body

func formCases(_ env: Env) -> [Case] {
    [HTTPMethod.post, .put, .patch].map { method in
        Case(name: "\(method) /\(method.rawValue.lowercased()) form body: same params, none in the query") {
            c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: method).call(method, params: Fixture.params))
            c.equal("form", Fixture.flat, reply["form"])
            c.noArgs(reply)
            c.equal("files", [:], reply["files"])
            c.equal("json", .null, reply["json"])
            c.header(reply, "Content-Type", is: "application/x-www-form-urlencoded")
        }
    }
}

// MARK: - §5/§7 params as a JSON body

func jsonCases(_ env: Env) -> [Case] {
    [
        Case(name: "POST /post placement: .json: json equals the params object") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .post).call(.post, params: Fixture.params, placement: .json))
            c.equal("json", Fixture.json, reply["json"])
            c.noArgs(reply)
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "application/json")
        },
        Case(name: "PUT /put resource-level Content-Type: application/json: params as JSON") { c in
            let resource = Httpbin(address: env.address, headers: ["Content-Type": "application/json"])
            let reply = try await c.echo(resource.endpoint(for: .put).call(.put, params: Fixture.params))
            c.equal("json", Fixture.json, reply["json"])
            c.noArgs(reply)
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "application/json")
        },
        Case(name: "PATCH /patch call-level content-type application/vnd.api+json: params as JSON, type kept")
        { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .patch).call(
                    .patch, headers: ["content-type": "application/vnd.api+json"], params: Fixture.params))
            c.equal("json", Fixture.json, reply["json"])
            c.noArgs(reply)
            c.header(reply, "Content-Type", is: "application/vnd.api+json")
        },
        Case(
            name:
                "POST /anything Content-Type \"Application/JSON; charset=utf-8\" (mixed case, parameter): params as JSON"
        ) { c in
            let resource = Httpbin(
                address: env.address, headers: ["content-TYPE": "Application/JSON; charset=utf-8"])
            let reply = try await c.echo(resource.anything().call(.post, params: ["a": "é", "n": 1]))
            c.equal("json", ["a": "é", "n": 1], reply["json"])
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "Application/JSON; charset=utf-8")
        },
        Case(
            name: "POST /anything placement: .form under a resource JSON Content-Type: body matches its label"
        ) { c in
            let resource = Httpbin(address: env.address, headers: ["Content-Type": "application/json"])
            let reply = try await c.echo(
                resource.anything().call(.post, params: ["a": "1", "b": "x y"], placement: .form))
            c.bodyMatchesLabel(reply, params: ["a": "1", "b": "x y"])
        },
        Case(name: "POST /anything placement: .json under a call form Content-Type: body matches its label") {
            c in
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    params: ["a": "1", "b": "x y"],
                    placement: .json))
            c.bodyMatchesLabel(reply, params: ["a": "1", "b": "x y"])
        },
        Case(name: "POST /anything JSON params with nulls: .null keeps nil as null") { c in
            let resource = Httpbin(address: env.address, paramStyle: ParamStyle(nulls: .null))
            let reply = try await c.echo(
                resource.anything().call(
                    .post, params: ["a": nil as String?, "b": 1, "c": ["x", nil] as [String?]],
                    placement: .json))
            c.equal("json", ["a": nil, "b": 1, "c": ["x", nil]], reply["json"])
        },
    ]
}

// MARK: - §5 explicit bodies

func bodyCases(_ env: Env) -> [Case] {
    [
        Case(name: "POST /anything .json(Encodable) body, params in the query") { c in
            let reply = try await c.echo(
                env.httpbin.anything().call(.post, params: Fixture.params, body: .json(Fixture.Book())))
            c.equal("json", Fixture.bookJSON, reply["json"])
            c.equal("data", .string(Fixture.bookBytes), reply["data"])
            c.equal("args", Fixture.flat, reply["args"])
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "application/json")
        },
        Case(name: "PUT /put .data body with caller Content-Type, byte for byte, params in the query") { c in
            let text = "line1\nline2 é 漢 +&=% \u{1}end"
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .put).call(
                    .put, params: ["q": "a+b", "arr": ["1", "2"]],
                    body: .data(Data(text.utf8), contentType: "text/plain; charset=utf-8")))
            c.equal("data", .string(text), reply["data"])
            c.equal("args", ["q": "a+b", "arr[]": ["1", "2"]], reply["args"])
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "text/plain; charset=utf-8")
        },
        Case(name: "POST /anything .data body: a header-level Content-Type wins over the body's") { c in
            let xml = "<a x=\"1\">é</a>"
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, headers: ["Content-Type": "application/xml"],
                    body: .data(Data(xml.utf8), contentType: "text/plain")))
            c.equal("data", .string(xml), reply["data"])
            c.header(reply, "Content-Type", is: "application/xml")
        },
        Case(
            name:
                "POST /anything .data body without a Content-Type: sent as octet-stream, not parsed as a form"
        ) {
            c in
            let text = "a=1&b=2"
            let reply = try await c.echo(env.httpbin.anything().call(.post, body: .data(Data(text.utf8))))
            c.equal("data", .string(text), reply["data"])
            c.equal("form", [:], reply["form"])
            c.header(reply, "Content-Type", is: "application/octet-stream")
        },
        Case(name: "PATCH /patch .file(URL) body: file bytes, type from the extension") { c in
            let content = #"{"from":"file","n":[1,2],"s":"é"}"#
            let url = try env.file("payload.json", Data(content.utf8))
            let reply = try await c.echo(env.httpbin.endpoint(for: .patch).call(.patch, body: .file(url)))
            c.equal("data", .string(content), reply["data"])
            c.equal("json", ["from": "file", "n": [1, 2], "s": "é"], reply["json"])
            c.header(reply, "Content-Type", is: "application/json")
        },
        Case(name: "DELETE /delete with a .data body: body sent, params in the query") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .delete).call(
                    .delete, params: ["id": 7],
                    body: .data(Data(#"{"x":1}"#.utf8), contentType: "application/json")))
            c.equal("args", ["id": "7"], reply["args"])
            c.equal("json", ["x": 1], reply["json"])
            c.equal("form", [:], reply["form"])
        },
    ]
}

// MARK: - §8 multipart

func multipartCases(_ env: Env) -> [Case] {
    [
        Case(
            name:
                "POST /anything multipart: text fields (unicode, arrays, nested) + file from URL + file from Data"
        ) { c in
            let note = "note from disk\nline 2 é 漢字 🚀\n"
            let url = try env.file("note.txt", Data(note.utf8))
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, params: Fixture.params,
                    files: ["doc": .file(url), "blob": .data(Data("blob é content".utf8), filename: "b.bin")])
            )
            c.equal("form", Fixture.flat, reply["form"])
            c.equal("files", ["doc": .string(note), "blob": "blob é content"], reply["files"])
            c.noArgs(reply)
            c.equal("json", .null, reply["json"])
            let type = c.header(reply, "Content-Type") ?? ""
            c.that(
                "Content-Type", type.hasPrefix("multipart/form-data; boundary="),
                expected: "to start with \"multipart/form-data; boundary=\"", got: "\"\(type)\"")
        },
        Case(name: "PUT /put multipart: binary file parts carry the guessed or given part Content-Type") {
            c in
            let pdf = Data([0x25, 0x50, 0x44, 0x46, 0xFF, 0x00, 0xFE])  // "%PDF" + invalid UTF-8
            let url = try env.file("doc.pdf", pdf)
            let raw = Data([0xFF, 0x00, 0xFE, 0x80])
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .put).call(
                    .put,
                    files: [
                        "img": .data(Fixture.png, filename: "pixel.png"),
                        "pdf": .file(url),
                        "given": .data(raw, filename: "x.png", contentType: "image/webp"),
                        "noext": .data(raw, filename: "noext"),
                    ]))
            c.equal(
                "files",
                [
                    "img": .string("data:image/png;base64," + Fixture.png.base64EncodedString()),
                    "pdf": .string("data:application/pdf;base64," + pdf.base64EncodedString()),
                    "given": .string("data:image/webp;base64," + raw.base64EncodedString()),
                    "noext": .string("data:application/octet-stream;base64," + raw.base64EncodedString()),
                ], reply["files"])
            c.equal("form", [:], reply["form"])
        },
        Case(name: "PATCH /patch placement: .multipart without files: params as fields") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .patch).call(
                    .patch,
                    params: ["a": "1", "arr": ["x", "y"], "n": ["k": "é"], "t": true, "z": nil as String?],
                    placement: .multipart))
            c.equal("form", ["a": "1", "arr[]": ["x", "y"], "n[k]": "é", "t": "true"], reply["form"])
            c.equal("files", [:], reply["files"])
            c.noArgs(reply)
            let type = c.header(reply, "Content-Type") ?? ""
            c.that(
                "Content-Type", type.hasPrefix("multipart/form-data; boundary="),
                expected: "to start with \"multipart/form-data; boundary=\"", got: "\"\(type)\"")
        },
        Case(
            name: "POST /anything multipart: our boundary wins over a caller's multipart or JSON Content-Type"
        ) { c in
            for callerType in ["multipart/form-data", "application/json"] {
                let reply = try await c.echo(
                    env.httpbin.anything().call(
                        .post, headers: ["Content-Type": callerType], params: ["a": "1"],
                        files: ["f": .data(Data("x".utf8), filename: "f.txt")]))
                c.equal("form (caller \(callerType))", ["a": "1"], reply["form"])
                c.equal("files (caller \(callerType))", ["f": "x"], reply["files"])
                let type = c.header(reply, "Content-Type") ?? ""
                c.that(
                    "Content-Type (caller \(callerType))", type.hasPrefix("multipart/form-data; boundary="),
                    expected: "to start with \"multipart/form-data; boundary=\"", got: "\"\(type)\"")
            }
        },
        Case(name: "POST /anything multipart: a 4 MiB file part from a URL arrives intact") { c in
            var text = ""
            var line = 0
            while text.utf8.count < 4 << 20 {
                text += "line \(line) é 漢字 — the quick brown fox\r\n"
                line += 1
            }
            let url = try env.file("big.txt", Data(text.utf8))
            let reply = try await c.echo(
                env.httpbin.anything().call(.post, params: ["n": line], files: ["big": .file(url)]))
            let got = reply["files"]["big"].string ?? ""
            c.that(
                "files.big", got == text, expected: "\(text.utf8.count) bytes equal to the file",
                got: "\(got.utf8.count) bytes, equal: \(got == text)")
            c.equal("form", ["n": .string(String(line))], reply["form"])
        },
        Case(name: "POST /anything multipart: control characters in names and filenames arrive percent-encoded") {
            c in
            // NUL, ESC and DEL never reach a part's header block raw (Docs/Security.md); werkzeug
            // does not decode percent signs in names, so it shows the escapes.
            let reply = try await c.echo(
                env.httpbin.anything().call(
                    .post, params: ["a\u{0}b": "v", "c\u{1B}[2Jd": "w"],
                    files: ["f\u{7F}": .data(Data("x".utf8), filename: "n\u{1B}.txt")]))
            c.equal("form", ["a%00b": "v", "c%1B[2Jd": "w"], reply["form"])
            c.equal("files", ["f%7F": "x"], reply["files"])
            c.noArgs(reply)
        },
        Case(name: "DELETE /delete with files: params become multipart fields, not query") { c in
            let reply = try await c.echo(
                env.httpbin.endpoint(for: .delete).call(
                    .delete, params: ["id": 1], files: ["f": .data(Data("x".utf8), filename: "f.txt")]))
            c.equal("form", ["id": "1"], reply["form"])
            c.equal("files", ["f": "x"], reply["files"])
            c.noArgs(reply)
        },
    ]
}

// MARK: - §4 three levels

func mergeCases(_ env: Env) -> [Case] {
    [
        Case(name: "headers merge resource < target < call, names case-insensitive") { c in
            let resource = Httpbin(
                address: env.address,
                headers: [
                    "X-Level": "resource", "x-res-only": "r", "X-Two": "resource", "accept": "text/plain",
                ])
            let target = resource.anything(
                headers: [
                    "x-level": "target", "X-TWO": "target", "X-Tgt-Only": "t", "Accept": "application/json",
                ])
            let reply = try await c.echo(
                target.call(.get, headers: ["X-LEVEL": "call", "x-call-only": "c"]))
            c.header(reply, "X-Level", is: "call")
            c.header(reply, "X-Res-Only", is: "r")
            c.header(reply, "X-Two", is: "target")
            c.header(reply, "X-Tgt-Only", is: "t")
            c.header(reply, "X-Call-Only", is: "c")
            c.header(reply, "Accept", is: "application/json")
        },
        Case(name: "params merge resource < target < call per top-level key (call nil removes)") { c in
            let resource = Httpbin(
                address: env.address,
                params: ["lvl": "resource", "r": "1", "drop": "x", "obj": ["a": "1", "b": "2"]])
            let target = resource.anything(params: ["lvl": "target", "t": "2", "obj": ["c": "3"]])
            let reply = try await c.echo(
                target.call(.get, params: ["lvl": "call", "c": "3", "drop": nil as String?]))
            c.equal("args", ["lvl": "call", "r": "1", "t": "2", "c": "3", "obj[c]": "3"], reply["args"])
        },
        Case(name: "params merge on POST: resource defaults land in the form body, not the query") { c in
            let resource = Httpbin(address: env.address, params: ["locale": "en"])
            let reply = try await c.echo(resource.endpoint(for: .post).call(.post, params: ["x": "1"]))
            c.equal("form", ["locale": "en", "x": "1"], reply["form"])
            c.noArgs(reply)
        },
    ]
}

// MARK: - §3 path parts

func pathCases(_ env: Env) -> [Case] {
    [
        Case(name: "path part with reserved characters reaches /anything/... as one segment") { c in
            let value = "a/b?c#d 50%_off é漢🚀 ;=@:+&$!'()*,~[x]"
            let reply = try await c.echo(
                env.httpbin.at("/anything/:part/end").call(.get, pathParts: ["part": value]))
            c.equal("decoded path", .string("/anything/" + value + "/end"), .string(c.decodedPath(reply)))
            c.noArgs(reply)
        },
        Case(name: "{name} token inside a segment, key given as \":name\"") { c in
            let reply = try await c.echo(
                env.httpbin.at("/anything/file-{name}.txt/:id").call(
                    .get, pathParts: ["name": "a b?c", ":id": 7]))
            c.equal("decoded path", "/anything/file-a b?c.txt/7", .string(c.decodedPath(reply)))
            c.noArgs(reply)
        },
    ]
}

// MARK: - byte-exact checks against the raw capture server

func rawCases(_ env: Env) -> [Case] {
    let smallParams: Params = [
        "b": "x y", "a": ["1", "2"], "c": ["z": "+", "y": "é"], "k[]": "br", "t": true, "n": nil as String?,
        "~-._": "~-._", "e": "", "Z": 1,
    ]
    let smallEncoded =
        "Z=1&a%5B%5D=1&a%5B%5D=2&b=x%20y&c%5By%5D=%C3%A9&c%5Bz%5D=%2B&e=&k%5B%5D=br&t=true&~-._=~-._"
    let service = RawService(port: env.raw.port)
    return [
        Case(name: "wire: GET query bytes are exact (byte-order keys, %5B%5D, %20, %2B, nil dropped)") { c in
            let request = try await c.capture(service.at("/raw").call(.get, params: smallParams), env.raw)
            c.that(
                "request target", request.target == "/raw?" + smallEncoded,
                expected: "= \"/raw?\(smallEncoded)\"", got: "\"\(request.target)\"")
        },
        Case(
            name:
                "wire: GET, HEAD, DELETE, OPTIONS put params in the query and carry no body, no Content-Type"
        ) { c in
            for method in [HTTPMethod.get, .head, .delete, .options] {
                let request = try await c.capture(
                    service.at("/raw").call(method, params: ["a": "1"]), env.raw)
                c.that(
                    "\(method) target", request.target == "/raw?a=1", expected: "= \"/raw?a=1\"",
                    got: "\"\(request.target)\"")
                c.that(
                    "\(method) body", request.body.isEmpty && !request.chunked, expected: "empty",
                    got: "\(request.body.count) bytes, chunked: \(request.chunked)")
                let type = request.values("Content-Type")
                c.that("\(method) Content-Type", type.isEmpty, expected: "absent", got: "\(type)")
                let length = request.values("Content-Length")
                c.that(
                    "\(method) Content-Length", length.allSatisfy { $0 == "0" }, expected: "absent or 0",
                    got: "\(length)")
            }
        },
        Case(name: "wire: POST form body bytes are exact, query empty, Content-Length exact") { c in
            let request = try await c.capture(
                service.at("/raw/form").call(.post, params: smallParams), env.raw)
            c.that(
                "request target", request.target == "/raw/form", expected: "= \"/raw/form\"",
                got: "\"\(request.target)\"")
            let body = String(decoding: request.body, as: UTF8.self)
            c.that(
                "body", body == smallEncoded, expected: "= \"\(smallEncoded)\"",
                got: "\"\(showBytes(request.body))\"")
            c.that(
                "Content-Type", request.values("Content-Type") == ["application/x-www-form-urlencoded"],
                expected: "= [application/x-www-form-urlencoded]", got: "\(request.values("Content-Type"))")
            c.that(
                "Content-Length", request.values("Content-Length") == [String(request.body.count)],
                expected: "= [\(request.body.count)]", got: "\(request.values("Content-Length"))")
        },
        Case(name: "wire: path part is one percent-encoded segment") { c in
            let request = try await c.capture(
                service.at("/raw/:part/end").call(.get, pathParts: ["part": "a/b?c#d%e f;g=h@i:j+k&l é[x]"]),
                env.raw)
            let expected = "/raw/a%2Fb%3Fc%23d%25e%20f;g=h@i:j+k&l%20%C3%A9%5Bx%5D/end"
            c.that(
                "request target", request.target == expected, expected: "= \"\(expected)\"",
                got: "\"\(request.target)\"")
        },
        Case(name: "wire: multipart body bytes are exact (field order, names, escaping, file parts)") { c in
            let note = "note\r\nline 2 é"
            let url = try env.file("wire-note.txt", Data(note.utf8))
            let request = try await c.capture(
                service.at("/raw/mp").call(
                    .post,
                    params: [
                        "b": 2, "a": ["x", "y"], "we\"ird\r\nname": "v", "n": ["k": "é"], "u": nil as String?,
                    ],
                    files: ["z": .data(Data("Z".utf8), filename: "q\"uote 漢.txt"), "f": .file(url)]),
                env.raw)
            let type = request.values("Content-Type").first ?? ""
            let prefix = "multipart/form-data; boundary="
            guard type.hasPrefix(prefix), request.values("Content-Type").count == 1 else {
                c.fail(
                    "expected one Content-Type starting with \(prefix) got \(request.values("Content-Type"))")
                return
            }
            let b = String(type.dropFirst(prefix.count))
            func field(_ name: String, _ value: String) -> String {
                "--\(b)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            let expected =
                field("a[]", "x") + field("a[]", "y") + field("b", "2") + field("n[k]", "é")
                + field("we%22ird%0D%0Aname", "v")
                + "--\(b)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"wire-note.txt\"\r\nContent-Type: text/plain\r\n\r\n\(note)\r\n"
                + "--\(b)\r\nContent-Disposition: form-data; name=\"z\"; filename=\"q%22uote 漢.txt\"\r\nContent-Type: text/plain\r\n\r\nZ\r\n"
                + "--\(b)--\r\n"
            let expectedData = Data(expected.utf8)
            c.that(
                "body", request.body == expectedData,
                expected: "= \"\(showBytes(expectedData, limit: 2000))\"",
                got: "\"\(showBytes(request.body, limit: 2000))\"")
            c.that(
                "Content-Length",
                request.values("Content-Length") == [String(request.body.count)] && !request.chunked,
                expected: "= [\(request.body.count)], not chunked",
                got: "\(request.values("Content-Length")) chunked: \(request.chunked)")
        },
        Case(
            name:
                "wire: merged header is sent once, with the winning level's spelling"
        ) { c in
            // DESIGN §4: the winning level's spelling is sent. (NetLayer assigns all fields at once,
            // so Linux Foundation's Title-Casing in `setValue` does not apply.)
            let platformName = "X-LEVEL"
            let resource = RawService(
                port: env.raw.port, headers: ["x-level": "resource", "X-Only-Res": "r"])
            let request = try await c.capture(
                resource.at("/raw", headers: ["X-Level": "target"]).call(.get, headers: ["X-LEVEL": "call"]),
                env.raw)
            let lines = request.headers.filter { $0.name.lowercased() == "x-level" }.map {
                "\($0.name): \($0.value)"
            }
            c.that(
                "x-level lines", lines == ["\(platformName): call"],
                expected: "= [\"\(platformName): call\"]", got: "\(lines)")
            let other = request.headers.filter { $0.name.lowercased() == "x-only-res" }.map {
                "\($0.name): \($0.value)"
            }
            c.that(
                "x-only-res lines", other == ["X-Only-Res: r"], expected: "= [\"X-Only-Res: r\"]",
                got: "\(other)")
        },
        Case(name: "wire: GET with a body: refused with unsupportedBody, nothing sent") { c in
            _ = env.raw.takeLast()
            do {
                _ = try await service.at("/raw").call(
                    .get, body: .data(Data("x".utf8), contentType: "text/plain")
                ).execute()
                c.fail("expected NetLayerError.unsupportedBody got a response")
            } catch let error as NetLayerError {
                c.that(
                    "error code", error.code == .unsupportedBody, expected: "unsupportedBody", got: "\(error)"
                )
            }
            if let request = env.raw.takeLast() {
                c.fail("expected nothing on the wire got \(request.shown)")
            }
        },
        Case(name: "wire: .data body without Content-Type is labelled application/octet-stream") { c in
            let request = try await c.capture(
                service.at("/raw").call(.post, body: .data(Data("a=1&b=2".utf8))), env.raw)
            c.that(
                "body", request.body == Data("a=1&b=2".utf8), expected: "= \"a=1&b=2\"",
                got: "\"\(showBytes(request.body))\"")
            c.that(
                "Content-Type", request.values("Content-Type") == ["application/octet-stream"],
                expected: "[application/octet-stream]", got: "\(request.values("Content-Type"))")
        },
    ]
}
