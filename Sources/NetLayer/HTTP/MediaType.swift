/// Media-type helpers: guessing a file's type and recognising JSON.
enum MediaType {
    static let form = "application/x-www-form-urlencoded"
    static let json = "application/json"
    static let octetStream = "application/octet-stream"
    static let multipart = "multipart/form-data"

    private static let byExtension: [String: String] = [
        "avif": "image/avif", "bmp": "image/bmp", "css": "text/css", "csv": "text/csv",
        "doc": "application/msword", "gif": "image/gif", "gz": "application/gzip",
        "heic": "image/heic", "htm": "text/html", "html": "text/html", "ico": "image/vnd.microsoft.icon",
        "jpeg": "image/jpeg", "jpg": "image/jpeg", "js": "text/javascript", "json": "application/json",
        "m4a": "audio/mp4", "md": "text/markdown", "mov": "video/quicktime", "mp3": "audio/mpeg",
        "mp4": "video/mp4", "ogg": "audio/ogg", "pdf": "application/pdf", "png": "image/png",
        "svg": "image/svg+xml", "tar": "application/x-tar", "tif": "image/tiff", "tiff": "image/tiff",
        "txt": "text/plain", "wav": "audio/wav", "webm": "video/webm", "webp": "image/webp",
        "xml": "application/xml", "zip": "application/zip",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ]

    /// The media type for a filename's extension, else `application/octet-stream`.
    static func guess(forFilename filename: String) -> String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return octetStream }
        let ext = filename[filename.index(after: dot)...].lowercased()
        return byExtension[ext] ?? octetStream
    }

    /// The essence of a `Content-Type` value (RFC 9110 §8.3.1): `type/subtype`, lower-cased,
    /// without its parameters or the optional whitespace (space, tab) around it:
    /// `" Text/HTML ; charset=utf-8"` is `text/html`. Every media type NetLayer compares goes
    /// through it.
    static func essence(_ contentType: String) -> String {
        let end = contentType.firstIndex(of: ";") ?? contentType.endIndex
        var type = contentType[..<end].utf8
        while let first = type.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            type = type.dropFirst()
        }
        while let last = type.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            type = type.dropLast()
        }
        return String(Substring(type)).lowercased()
    }

    /// `application/json` or any `*+json` type.
    static func isJSON(_ contentType: String) -> Bool {
        isJSONEssence(essence(contentType))
    }

    /// `application/x-www-form-urlencoded`.
    static func isForm(_ contentType: String) -> Bool {
        essence(contentType) == form
    }

    /// `multipart/form-data`.
    static func isMultipart(_ contentType: String) -> Bool {
        essence(contentType) == multipart
    }

    /// Whether the essence `type` (see ``essence(_:)``) falls within `range`, itself an essence:
    /// `*/*` is any type, `image/*` any `image/` type, `application/json` also every `+json` type,
    /// and any other range only itself.
    static func matches(_ type: String, range: String) -> Bool {
        if range == "*/*" || range == type { return true }
        if range.hasSuffix("/*") { return type.hasPrefix(range.dropLast()) }
        return range == json && isJSONEssence(type)
    }

    private static func isJSONEssence(_ type: String) -> Bool {
        type == json || type.hasSuffix("+json")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " || copy.last == "\t" { copy.removeLast() }
        return copy
    }
}
