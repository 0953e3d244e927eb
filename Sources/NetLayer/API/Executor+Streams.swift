import Foundation

extension Executor {
    /// Sends the call and returns the body as it arrives, in chunks. The status is validated
    /// first: an unacceptable one throws before any chunk, with the body in the error. Breaking out
    /// of the loop (or cancelling the task) cancels the transfer. A consumer that lags never makes
    /// memory grow: at most about 1 MiB (the transport's `bufferLimit`) waits unread in memory.
    /// Beyond that, Apple platforms pause the task; Linux URLSession cannot pause one, so the
    /// surplus goes to a temporary file (readable by the user only, removed as it is read back and
    /// when the call ends; a reader more than 4 GiB behind fails with `responseTooLarge`).
    /// - Parameter debug: Print the request and the response head. Default `false`.
    /// - Throws: ``NetLayerError``, from this call or while iterating; an unacceptable status
    ///   throws the mapped error when an ``ErrorMapping`` applies.
    public func stream(debug: Bool = false) async throws -> ResponseStream<Data> {
        let call = try await mappingErrors { try await openStream(debug: debug) }
        let reader = BodyReader(call: call, ended: options.progressEnded)
        return ResponseStream(next: { try await reader.next() }, stop: { reader.stop() })
    }

    /// Sends the call and returns the body's lines as they arrive (NDJSON, logs): split at LF, a CR
    /// before it removed, UTF-8 decoded whole (a character split across chunks is kept whole;
    /// invalid bytes become U+FFFD). A last line without a line end is returned too. Otherwise as
    /// ``stream(debug:)``.
    /// - Parameters:
    ///   - maximumLength: The longest line accepted, in bytes. Default 1 MiB.
    ///   - debug: Print the request and the response head. Default `false`.
    /// - Throws: ``NetLayerError``; `.responseTooLarge` for a longer line.
    public func lines(maximumLength: Int = 1 << 20, debug: Bool = false) async throws -> ResponseStream<
        String
    > {
        let call = try await mappingErrors { try await openStream(debug: debug) }
        let reader = BodyReader(call: call, ended: options.progressEnded)
        let splitter = LineReader(reader: reader, maximumLength: max(1, maximumLength))
        return ResponseStream(next: { try await splitter.next() }, stop: { reader.stop() })
    }

    /// Sends the call and decodes each line as JSON with the resource's decoder, as it arrives
    /// (NDJSON, JSON Lines). Blank lines are skipped. Otherwise as
    /// ``lines(maximumLength:debug:)``.
    /// - Parameters:
    ///   - model: The type of each line.
    ///   - maximumLength: The longest line accepted, in bytes. Default 1 MiB.
    ///   - debug: Print the request and the response head. Default `false`.
    /// - Throws: ``NetLayerError``; `.decodingFailed` naming the line number (from 1) whose JSON did
    ///   not decode; the transfer is cancelled then.
    public func lines<Model: Decodable & Sendable>(
        decoding model: Model.Type, maximumLength: Int = 1 << 20, debug: Bool = false
    ) async throws -> ResponseStream<Model> {
        let call = try await mappingErrors { try await openStream(debug: debug) }
        let reader = BodyReader(call: call, ended: options.progressEnded)
        let splitter = LineReader(reader: reader, maximumLength: max(1, maximumLength))
        let decoder = resource.options.decoder
        let redactor = call.redactor(for: call.prepared)
        let counter = LineCounter()
        return ResponseStream(
            next: {
                while let line = try await splitter.next() {
                    let number = counter.advance()
                    if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                    let data = Data(line.utf8)
                    do {
                        return try decoder.decode(Model.self, from: data)
                    } catch {
                        reader.stop()
                        var failure = NetLayerError.decodingFailed(
                            error, type: Model.self, body: data, redactor: redactor)
                        failure.message = "line \(number): " + failure.message
                        failure.metrics = reader.metrics
                        throw failure.redacted(by: redactor)
                    }
                }
                return nil
            }, stop: { reader.stop() })
    }

    /// Opens a streamed call and prints its head.
    func openStream(debug: Bool) async throws(NetLayerError) -> OpenedCall {
        do {
            let call = try await open(debug: debug, streams: true)
            call.log?.streamed(call.head)
            return call
        } catch {
            options.progressEnded?()
            throw error
        }
    }
}
