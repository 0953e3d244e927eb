import Foundation

/// An explicit request body. When a body is given, params travel in the query string.
///
/// Create one with ``data(_:contentType:)``, ``json(_:)`` or ``file(_:contentType:range:)``.
public struct Body: Sendable {
    enum Storage: Sendable {
        case data(Data, contentType: String?)
        case json(@Sendable (JSONEncoder) throws -> Data)
        case file(URL, contentType: String?, range: Range<Int64>?)
    }

    let storage: Storage

    /// Raw bytes sent byte for byte.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - contentType: Sent unless a header level sets `Content-Type`. Default:
    ///     `application/octet-stream` (a body without a type would be relabelled as a form by Linux
    ///     URLSession).
    public static func data(_ data: Data, contentType: String? = nil) -> Body {
        Body(storage: .data(data, contentType: contentType))
    }

    /// A value encoded with the resource's `JSONEncoder`; `Content-Type: application/json` unless a
    /// header level sets another. Encoding happens when the call runs; a failure throws
    /// ``NetLayerError/Code/encodingFailed`` and nothing is sent.
    public static func json<Value: Encodable & Sendable>(_ value: Value) -> Body {
        Body(storage: .json({ encoder in try encoder.encode(value) }))
    }

    /// The contents of a file, or a byte range of it, streamed from disk when the call is sent
    /// (never read whole into memory) with its exact `Content-Length`.
    /// - Parameters:
    ///   - url: A file URL of a regular file. Anything else throws
    ///     ``NetLayerError/Code/encodingFailed`` and nothing is sent.
    ///   - contentType: Default: guessed from the file extension, else `application/octet-stream`.
    ///   - range: Default: the whole file. A range outside the file throws `.encodingFailed`.
    public static func file(_ url: URL, contentType: String? = nil, range: Range<Int64>? = nil) -> Body {
        Body(storage: .file(url, contentType: contentType, range: range))
    }
}

/// A file attached to a multipart request.
public struct FilePart: Sendable {
    enum Source: Sendable {
        case file(URL)
        case data(Data)
    }

    let source: Source
    /// The `filename` sent in the part's `Content-Disposition`.
    public let filename: String
    /// The part's `Content-Type`.
    public let contentType: String

    /// A file on disk.
    /// - Parameters:
    ///   - url: A file URL; an unreadable file throws ``NetLayerError/Code/encodingFailed``.
    ///   - filename: Default: the URL's last path component.
    ///   - contentType: Default: guessed from the filename's extension, else
    ///     `application/octet-stream`.
    public static func file(_ url: URL, filename: String? = nil, contentType: String? = nil) -> FilePart {
        let name = filename ?? url.lastPathComponent
        return FilePart(
            source: .file(url), filename: name, contentType: contentType ?? MediaType.guess(forFilename: name)
        )
    }

    /// Bytes in memory.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - filename: The name sent with the part.
    ///   - contentType: Default: guessed from the filename's extension, else
    ///     `application/octet-stream`.
    public static func data(_ data: Data, filename: String, contentType: String? = nil) -> FilePart {
        FilePart(
            source: .data(data), filename: filename,
            contentType: contentType ?? MediaType.guess(forFilename: filename))
    }
}
