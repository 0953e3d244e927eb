/// Generates cases from a seed: case `index` of the run seeded `seed` is always the same case.
struct FuzzGenerator: Sendable {
    var profile: FuzzProfile
    var seed: UInt64

    /// Case `index`. Case 0 is always accepted and case 1 always refused, so even a tiny run
    /// exercises both kinds; after that about `profile.refusedRate` of the cases are refused.
    func makeCase(_ index: Int) -> FuzzCase {
        var random = FuzzRandom(seed: seed, index: index)
        let refuse = index == 1 || (index != 0 && random.chance(profile.refusedRate))
        for _ in 0..<100 {
            var candidate = accepted(&random)
            if refuse { inject(into: &candidate, &random) }
            if profile.allows(candidate) && (FuzzRefusal.all(in: candidate).isEmpty != refuse) {
                return candidate
            }
        }
        return refuse ? FuzzCase(method: "GET", pathValue: .string("..")) : FuzzCase(method: "GET")
    }

    // MARK: Accepted inputs

    private func accepted(_ random: inout FuzzRandom) -> FuzzCase {
        var fuzzCase = FuzzCase(method: "GET")
        switch random.weighted([24, 20, 20, 20, 16]) {
        case 0:  // query
            fuzzCase.method = random.pick(FuzzCase.queryMethods)
        case 1:  // form
            fuzzCase.method = random.pick(FuzzCase.bodyMethods)
        case 2:  // JSON, by a Content-Type at some level or by `placement: .json`
            fuzzCase.method = random.pick(FuzzCase.bodyMethods)
            if random.chance(0.5) {
                fuzzCase.encoding = .json
            } else {
                fuzzCase.headers.append(contentType(random.pick(Self.jsonTypes), &random))
            }
        case 3:  // multipart: files, or `placement: .multipart`; a caller's Content-Type loses
            fuzzCase.method = random.pick(FuzzCase.bodyMethods)
            let count = random.chance(0.15) ? 0 : random.int(1...3)
            if count == 0 { fuzzCase.encoding = .multipart }
            for _ in 0..<count { fuzzCase.files.append(file(&random)) }
            if random.chance(0.1) {
                fuzzCase.headers.append(contentType(random.pick(Self.jsonTypes), &random))
            }
        default:  // an explicit body; params go to the query
            fuzzCase.method = random.pick(FuzzCase.bodyMethods + ["DELETE"])
            let data = bytes(&random, max: 200)
            let bodyType: String? = random.chance(0.6) ? random.pick(Self.bodyTypes) : nil
            fuzzCase.body = FuzzBody(data: data, contentType: bodyType)
            if random.chance(0.35) {
                fuzzCase.headers.append(contentType(random.pick(Self.bodyTypes), &random))
            }
        }

        fuzzCase.params = entries(&random, max: 6, depth: 0)
        if random.chance(0.3) {
            fuzzCase.targetParams = entries(&random, max: 2, depth: 0)
            // Now and then the call overrides a target key.
            if let first = fuzzCase.targetParams.first, random.chance(0.4),
                !fuzzCase.params.contains(where: { $0.key == first.key })
            {
                fuzzCase.params.append(
                    FuzzEntry(key: first.key, value: .string(FuzzAlphabet.text(.value, &random))))
            }
        }

        for _ in 0..<random.count(max: 4) {
            let name =
                "X-Fuzz-" + FuzzAlphabet.tokenSuffix(&random, underscore: profile.headerNamesWithUnderscore)
            let level: FuzzLevel = random.chance(0.3) ? .target : .call
            fuzzCase.headers.append(
                FuzzHeader(level: level, name: name, value: FuzzAlphabet.headerValue(&random)))
            if random.chance(0.1) {  // the same name at the other level, spelled differently
                fuzzCase.headers.append(
                    FuzzHeader(
                        level: level == .call ? .target : .call, name: name.uppercased(),
                        value: FuzzAlphabet.headerValue(&random)))
            }
        }

        fuzzCase.pathStyle = random.pick([.colon, .braces, .bracesInside])
        fuzzCase.pathKeyWithColon = random.chance(0.3)
        switch random.int(0...9) {
        case 0: fuzzCase.pathValue = .int(integer(&random))
        case 1: fuzzCase.pathValue = .bool(random.chance(0.5))
        default:
            var text = FuzzAlphabet.text(.pathValue, &random)
            if text.isEmpty || text == "." || text == ".." {
                text = random.pick(["...", ". ", ".a", "a.", "x"])
            }
            fuzzCase.pathValue = .string(text)
        }
        return fuzzCase
    }

    static let jsonTypes = [
        "application/json", "application/json; charset=utf-8", "Application/JSON",
        "application/vnd.fuzz+json",
        " application/json\t", "application/problem+json",
    ]
    static let bodyTypes = [
        "application/octet-stream", "text/plain; charset=utf-8", "application/x-fuzz", "image/png",
        "application/json",
        "application/vnd.fuzz+json", "text/csv", " text/plain ",
    ]

    private func contentType(_ value: String, _ random: inout FuzzRandom) -> FuzzHeader {
        FuzzHeader(
            level: random.chance(0.3) ? .target : .call,
            name: random.pick(["Content-Type", "content-type", "CONTENT-TYPE"]),
            value: value)
    }

    private func file(_ random: inout FuzzRandom) -> FuzzFile {
        var filename = FuzzAlphabet.text(.filename, &random)
        var type: String? = random.pick([
            "text/plain", "image/png", "application/x-fuzz", "application/octet-stream",
        ])
        if random.chance(0.5) {
            type = nil
            filename = String(String.UnicodeScalarView(filename.unicodeScalars.filter { $0 != "." }))
            filename += random.pick(["", ".txt", ".png", ".json", ".PDF", ".TxT"])
        }
        return FuzzFile(
            field: FuzzAlphabet.text(.key, &random), filename: filename, contentType: type,
            data: bytes(&random, max: 96))
    }

    /// Text, binary, or text that imitates multipart delimiters.
    private func bytes(_ random: inout FuzzRandom, max: Int) -> [UInt8] {
        switch random.int(0...5) {
        case 0: return (0..<random.int(0...max)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1: return Array(("\r\n--" + FuzzAlphabet.text(.value, &random) + "\r\n\r\n--").utf8)
        case 2: return Array(#"{"a":[1,2.5,null],"b":"\u00e9"}"#.utf8)
        default: return Array(FuzzAlphabet.text(.value, &random, maxAtoms: max / 4).utf8)
        }
    }

    // MARK: Params

    private func entries(_ random: inout FuzzRandom, max: Int, depth: Int) -> [FuzzEntry] {
        var result: [FuzzEntry] = []
        for _ in 0..<random.count(max: max) {
            let key = FuzzAlphabet.text(.key, &random)
            if result.contains(where: { $0.key == key }) { continue }
            result.append(FuzzEntry(key: key, value: value(&random, depth: depth)))
        }
        return result
    }

    private func value(_ random: inout FuzzRandom, depth: Int) -> FuzzValue {
        if depth < 3 && random.chance(depth == 0 ? 0.35 : 0.2) {
            if random.chance(0.6) {
                let count = random.count(max: 5)
                return .array(
                    (0..<count).map { _ in random.chance(0.15) ? .null : value(&random, depth: depth + 1) })
            }
            return .dictionary(entries(&random, max: 4, depth: depth + 1))
        }
        switch random.weighted([46, 14, 14, 10, 16]) {
        case 0: return .string(FuzzAlphabet.text(.value, &random))
        case 1: return .int(integer(&random))
        case 2: return .double(double(&random))
        case 3: return .bool(random.chance(0.5))
        default: return .null
        }
    }

    private func integer(_ random: inout FuzzRandom) -> Int {
        switch random.int(0...5) {
        case 0: return random.pick([0, -1, 1, Int.max, Int.min, Int(Int32.max) + 1])
        case 1: return Int(truncatingIfNeeded: random.next())
        default: return random.int(-1000...100_000)
        }
    }

    private func double(_ random: inout FuzzRandom) -> Double {
        switch random.int(0...6) {
        case 0:
            return random.pick([
                0.0, -0.0, 1.0, 0.1, 1e16, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 2.5e-308,
                123456789.125,
            ])
        case 1:
            let number = Double(bitPattern: random.next())
            return number.isFinite ? number : 42.5
        case 2: return Double(random.int(-100...100))
        default:
            return Double(random.int(-1_000_000...1_000_000)) / Double(random.pick([1, 3, 8, 100, 1000]))
        }
    }

    // MARK: Refused inputs

    /// Adds exactly one kind of input DESIGN refuses.
    private func inject(into fuzzCase: inout FuzzCase, _ random: inout FuzzRandom) {
        let level: FuzzLevel = random.chance(0.3) ? .target : .call
        let kinds: [FuzzRefusal] =
            fuzzCase.files.isEmpty
            ? FuzzRefusal.allCases.filter { $0 != .partTypeControl } : FuzzRefusal.allCases
        switch random.pick(kinds) {
        case .headerValueControl:
            let value = FuzzAlphabet.withControl(FuzzAlphabet.headerValue(&random), &random)
            let name = "X-Fuzz-" + FuzzAlphabet.tokenSuffix(&random, underscore: false) + "-bad"
            fuzzCase.headers.append(FuzzHeader(level: level, name: name, value: value))
        case .headerNameNotToken:
            fuzzCase.headers.append(
                FuzzHeader(
                    level: level, name: FuzzAlphabet.nonTokenName(&random),
                    value: FuzzAlphabet.headerValue(&random)))
        case .framingHeader:
            let value = random.pick([
                "0", "5", "chunked", "close", "keep-alive", "example.com", "h2c", "trailers", "", " 12 ",
            ])
            fuzzCase.headers.append(
                FuzzHeader(level: level, name: FuzzAlphabet.framingName(&random), value: value))
        case .partTypeControl:
            let index = random.int(0...(fuzzCase.files.count - 1))
            fuzzCase.files[index].contentType = FuzzAlphabet.withControl(
                fuzzCase.files[index].contentType ?? "text/plain", &random)
        case .pathPartDots:
            fuzzCase.pathValue = .string(random.pick(["", ".", ".."]))
        case .nonFiniteNumber:
            let number = random.pick([Double.nan, .infinity, -.infinity, -Double.nan])
            let onTarget = level == .target
            var entries = onTarget ? fuzzCase.targetParams : fuzzCase.params
            if !entries.isEmpty && random.chance(0.6) {
                let index = random.int(0...(entries.count - 1))
                entries[index].value = Self.bury(.double(number), in: entries[index].value, &random)
            } else {
                entries.append(
                    FuzzEntry(key: "nf" + FuzzAlphabet.text(.key, &random), value: .double(number)))
            }
            if onTarget { fuzzCase.targetParams = entries } else { fuzzCase.params = entries }
        }
    }

    /// `value` with `number` placed somewhere inside (a scalar is replaced, a container gains it).
    private static func bury(_ number: FuzzValue, in value: FuzzValue, _ random: inout FuzzRandom)
        -> FuzzValue
    {
        switch value {
        case .array(var items):
            if !items.isEmpty && random.chance(0.5) {
                let index = random.int(0...(items.count - 1))
                items[index] = bury(number, in: items[index], &random)
            } else {
                items.insert(number, at: random.int(0...items.count))
            }
            return .array(items)
        case .dictionary(var entries):
            if !entries.isEmpty && random.chance(0.5) {
                let index = random.int(0...(entries.count - 1))
                entries[index].value = bury(number, in: entries[index].value, &random)
            } else if !entries.contains(where: { $0.key == "nf" }) {
                entries.append(FuzzEntry(key: "nf", value: number))
            }
            return .dictionary(entries)
        default:
            return number
        }
    }
}
