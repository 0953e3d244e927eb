import Foundation

/// Writes params as one JSON object with keys in byte order, using the same value mapping as forms.
enum JSONParams {
    /// - Throws: ``NetLayerError`` `.encodingFailed` for a non-finite number.
    static func encode(_ params: [String: ParamValue], nulls: ParamStyle.NullEncoding)
        throws(NetLayerError) -> Data
    {
        var output: [UInt8] = []
        output.reserveCapacity(64 + params.count * 24)
        try write(.dictionary(params), path: "", nulls: nulls, into: &output)
        return Data(output)
    }

    private static func write(
        _ value: ParamValue, path: String, nulls: ParamStyle.NullEncoding, into output: inout [UInt8]
    ) throws(NetLayerError) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text):
            guard isJSONNumber(text) else {
                throw .encodingFailed("param \(path) is \(text), which JSON cannot represent")
            }
            output.append(contentsOf: text.utf8)
        case .string(let text):
            writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            var first = true
            for (index, item) in items.enumerated() where !(item == .null && nulls == .drop) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                try write(item, path: "\(path)[\(index)]", nulls: nulls, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let entries):
            output.append(UInt8(ascii: "{"))
            var first = true
            for key in FormEncoder.sortedKeys(entries) {
                guard let item = entries[key], !(item == .null && nulls == .drop) else { continue }
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                try write(item, path: path.isEmpty ? key : "\(path).\(key)", nulls: nulls, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// RFC 8259 number grammar: `-? int frac? exp?`.
    static func isJSONNumber(_ text: String) -> Bool {
        text.withUTF8Bytes(isJSONNumber(bytes:))
    }

    private static func isJSONNumber(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func at(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
        func digits() -> Int {
            let start = index
            while index < bytes.count && bytes[index] >= 48 && bytes[index] <= 57 { index += 1 }
            return index - start
        }
        if at(UInt8(ascii: "-")) { index += 1 }
        let leadingZero = at(UInt8(ascii: "0"))
        let intDigits = digits()
        if intDigits == 0 || (leadingZero && intDigits > 1) { return false }
        if at(UInt8(ascii: ".")) {
            index += 1
            if digits() == 0 { return false }
        }
        if at(UInt8(ascii: "e")) || at(UInt8(ascii: "E")) {
            index += 1
            if at(UInt8(ascii: "+")) || at(UInt8(ascii: "-")) { index += 1 }
            if digits() == 0 { return false }
        }
        return index == bytes.count
    }
}
