/// The texts the fuzzer draws from: each generated string is a run of "atoms", small pieces
/// picked for the trouble they cause encoders and parsers (delimiters, escapes, percent sequences,
/// combining marks, emoji, control characters).
enum FuzzAlphabet {
    /// What a text is for; each use allows a different set of atoms.
    enum Use: Sendable {
        /// Param keys, which are also multipart field names and file keys.
        case key
        /// Param string values (anything goes, control characters included).
        case value
        /// A header value DESIGN accepts: no control character but HTAB.
        case headerValue
        /// A path-part value.
        case pathValue
        /// A multipart filename.
        case filename
    }

    static let letters = Array("abcxyzABCXYZ0189")
    static let punctuation = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    static let whitespace = [" ", "\t", "  ", " \t"]
    static let percent = [
        "%", "%%", "%2", "%zz", "%41", "%25", "%2F", "%20", "%C3%A9", "%00", "%0D%0A", "%22", "%5B%5D",
        "%E2%82",
    ]
    static let structural = [
        "[]", "[", "]", "[0]", "[a]", "][", "[[", "=", "==", "&", "&&", "+", "#", "?", "a=b&c", "k[]=", ";",
        "/", "//", ".", "..",
    ]
    static let unicode = [
        "é", "e\u{301}", "ñ", "ß", "Ω", "中文", "日本語", "한", "😀", "👩‍👩‍👧", "🇫🇷", "\u{FEFF}", "\u{200B}",
        "\u{2028}", "\u{85}", "\u{A0}", "\u{301}", "\u{10FFFD}", "Ä", "ǅ", "\u{FFFD}", "ﬁ",
    ]
    static let quoting = ["\"", "\\", "\\\"", "\"\\", "\\\\", "%22", "'", "\\n"]
    static let lineBreaks = ["\r", "\n", "\r\n", "\n\r"]
    /// Control characters other than HTAB (the ones a header value may not carry).
    static let controlScalars: [Unicode.Scalar] = (Array(0x00...0x08) + Array(0x0A...0x1F) + [0x7F]).map {
        Unicode.Scalar(UInt8($0))
    }
    static let controls: [String] = controlScalars.map { String($0) }

    /// A random text for `use`, from a few atoms (now and then none, now and then many).
    static func text(_ use: Use, _ random: inout FuzzRandom, maxAtoms: Int = 12) -> String {
        let count: Int
        switch random.int(0...19) {
        case 0: count = 0
        case 1...11: count = random.int(1...3)
        case 12...17: count = random.int(4...8)
        default: count = random.int(9...max(9, maxAtoms))
        }
        var text = ""
        for _ in 0..<count { text += atom(use, &random) }
        return text
    }

    /// One atom: plain characters most of the time, else something awkward.
    static func atom(_ use: Use, _ random: inout FuzzRandom) -> String {
        // Weights: letters, punctuation, whitespace, percent, structural, unicode, quoting, line breaks, controls
        var weights = [34, 16, 6, 8, 8, 14, 5, 3, 3]
        switch use {
        case .key, .pathValue: weights[8] = 0
        case .filename:
            weights[6] = 12
            weights[7] = 5
            weights[8] = 0
        case .headerValue:
            weights[7] = 0
            weights[8] = 0
        case .value: break
        }
        switch random.weighted(weights) {
        case 0: return String((0..<random.int(1...4)).map { _ in random.pick(letters) })
        case 1: return String(random.pick(punctuation))
        case 2: return random.pick(whitespace)
        case 3: return random.pick(percent)
        case 4: return random.pick(structural)
        case 5: return random.pick(unicode)
        case 6: return random.pick(quoting)
        case 7: return random.pick(lineBreaks)
        default: return random.pick(controls)
        }
    }

    /// A header value DESIGN accepts, often with spaces and tabs around it (which a server must not
    /// see) and inside it (which it must).
    static func headerValue(_ random: inout FuzzRandom) -> String {
        switch random.int(0...19) {
        case 0: return ""
        case 1: return random.pick([" ", "\t", " \t ", "\t\t"])
        default:
            var value = text(.headerValue, &random)
            if random.chance(0.3) { value = random.pick(whitespace) + value }
            if random.chance(0.3) { value += random.pick(whitespace) }
            return value
        }
    }

    /// A header name suffix of token characters (after `X-Fuzz-`).
    static func tokenSuffix(_ random: inout FuzzRandom, underscore: Bool) -> String {
        let characters = Array("abcxyzABCXYZ019-.!#$%&'*+^`|~" + (underscore ? "_" : ""))
        return String((0..<random.int(1...6)).map { _ in random.pick(characters) })
    }

    /// A name that is not an RFC 9110 token: empty, or holding a space, a delimiter, a control
    /// character or a non-ASCII character.
    static func nonTokenName(_ random: inout FuzzRandom) -> String {
        if random.chance(0.1) { return "" }
        let bad = random.pick([
            " ", ":", "(", ")", ",", "/", ";", "<", "=", ">", "?", "@", "[", "\\", "]", "{", "}", "\"", "é",
            "中",
            "\t", "\r\n", "\0", "\u{7F}", "😀",
        ])
        var name = Array("X-Fuzz-" + tokenSuffix(&random, underscore: false))
        name.insert(contentsOf: bad, at: random.int(0...name.count))
        return String(name)
    }

    /// A framing header name DESIGN reserves for NetLayer, in a random mix of cases.
    static func framingName(_ random: inout FuzzRandom) -> String {
        let name = random.pick([
            "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "TE", "Trailer", "Upgrade",
            "Host",
        ])
        return String(
            name.map { random.chance(0.5) ? Character($0.lowercased()) : Character($0.uppercased()) })
    }

    /// `value` with one control character other than HTAB inserted somewhere.
    static func withControl(_ value: String, _ random: inout FuzzRandom) -> String {
        var scalars = Array(value.unicodeScalars)
        let control = random.pick(controlScalars)
        scalars.insert(control, at: random.int(0...scalars.count))
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}
