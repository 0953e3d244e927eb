import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Lets a second core take half of the page-cache work of a large spool.
///
/// A spool needs as many new page-cache pages as the body has bytes, and the writer allocates them
/// one write at a time under the file's lock, so finding and clearing those pages runs on one
/// core. On a virtual machine that hands freed memory back to its host, each such page also costs
/// a fault in the host, which made that work most of a spool's time (1 GiB on two cores: 2.2–3.2 s,
/// against 0.5–1.0 s with memory freed a moment ago; measured in the benchmark's multipart part).
///
/// So, on Linux, the file is first sized to its final length, and a helper thread asks the kernel
/// to read every other ``step`` of it ahead of the writer, at most ``window`` ahead
/// (`POSIX_FADV_WILLNEED` on a sparse range fills the page cache with zeroed pages without taking
/// the file's lock). The writer fills the steps in between itself, and copies into the helper's
/// pages cheaply; neither waits on pages the other is still filling. The advice never changes what
/// the file holds: the kernel adds a page only where none is cached, and a page the writer has
/// written is cached.
///
/// The helper is a thread of its own for the spool's duration, which sleeps when it is a window
/// ahead and wakes when the writer reports progress: a queue's worker would have to be asked for
/// again after each pause, and on Linux a dispatch queue's worker can be late when its pool is busy
/// with blocking work like this writer. For bodies under ``minimumLength``, on one core and off
/// Linux no helper is started. (On tmpfs, whose pages are memory anyway, the kernel ignores the
/// advice; the helper then only costs a sleeping thread.)
///
/// Unchecked Sendable: `state` is only touched under `condition`; `length` and `reader` are
/// constants.
final class SpoolPrefault: @unchecked Sendable {
    /// 32 MiB: below it the spool takes a few milliseconds and a second thread would cost more than
    /// it saves.
    static let minimumLength: Int64 = 32 << 20
    /// 8 MiB per step: the helper and the writer take turns by step, so neither waits on pages the
    /// other is still filling.
    static let step: Int64 = 8 << 20
    /// 128 KiB per advice: the smallest read-ahead size Linux uses by default, so that every advice
    /// is carried out whole (the kernel cuts a larger one to the device's read-ahead size).
    static let piece: Int64 = 128 << 10
    /// 64 MiB: how far ahead of the writer the helper may fill the page cache. Enough to keep both
    /// cores busy; small enough that a body larger than the memory left to the process (a
    /// container's limit) does not push out pages the writer has yet to use.
    static let window: Int64 = 64 << 20

    private struct State {
        /// The writer has written everything before this offset.
        var written: Int64 = 0
        /// Where the last advice started (a multiple of ``step``; 0 before the first).
        var next: Int64 = 0
        var finished = false
        var advised: Int64 = 0
        var exited = false
    }
    private let condition = NSCondition()
    private var state = State()
    private let length: Int64
    /// The helper's own descriptor of the spool (a duplicate of the writer's), closed by the helper
    /// as it exits: never a number the writer closes under it.
    private let reader: Int32

    private init(length: Int64, reader: Int32) {
        self.length = length
        self.reader = reader
    }

    /// Sizes `descriptor` (the spool being written, at offset 0) to `length` and starts the helper
    /// on a duplicate of it, when that is worth it here.
    /// - Returns: The helper, which the writer tells of its progress and then ``finish()``es;
    ///   `nil` when none was started (the file is then untouched).
    static func start(descriptor: Int32, length: Int64) -> SpoolPrefault? {
        #if canImport(Glibc) || canImport(Musl)
            guard length >= minimumLength, ProcessInfo.processInfo.activeProcessorCount > 1 else {
                return nil
            }
            // The helper's own number for the same open file: no second lookup by path.
            let reader = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard reader >= 0 else { return nil }
            guard ftruncate(descriptor, off_t(length)) == 0 else {
                _ = close(reader)
                return nil
            }
            let prefault = SpoolPrefault(length: length, reader: reader)
            let thread = Thread { prefault.run() }
            thread.name = "NetLayer spool prefault"
            thread.start()
            return prefault
        #else
            return nil
        #endif
    }

    /// The writer has written everything before `offset`; wakes the helper.
    func wrote(upTo offset: Int64) {
        condition.lock()
        state.written = offset
        condition.signal()
        condition.unlock()
    }

    /// The writer is done (or gave up): the helper exits before its next step.
    func finish() {
        condition.lock()
        state.finished = true
        condition.signal()
        condition.unlock()
    }

    /// Bytes the helper has advised so far (for tests).
    var advised: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return state.advised
    }

    /// Whether the helper has exited and closed its descriptor (for tests).
    var hasExited: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.exited
    }

    /// The start of the next step to advise: the first odd-numbered step past the writer's step
    /// and the last one advised (the writer's own pages come from the even steps, so neither waits
    /// on pages the other is still filling), whether or not the window allows it yet.
    private static func nextStep(_ state: State) -> Int64 {
        var index = max(state.next, state.written) / step + 1
        if index % 2 == 0 { index += 1 }
        return index * step
    }

    private func run() {
        condition.lock()
        while !state.finished {
            let start = Self.nextStep(state)
            if start >= length { break }
            if start + Self.step > state.written + Self.window {
                condition.wait()
                continue
            }
            state.next = start
            condition.unlock()
            let count = min(Self.step, length - start)
            #if canImport(Glibc) || canImport(Musl)
                // The kernel reads at most the device's read-ahead size per advice (128 KiB by
                // default, 8 MiB on some virtual disks), so the step goes in pieces of that size.
                var offset = start
                while offset < start + count {
                    let piece = min(Self.piece, start + count - offset)
                    _ = posix_fadvise(reader, off_t(offset), off_t(piece), POSIX_FADV_WILLNEED)
                    offset += piece
                }
            #endif
            condition.lock()
            state.advised += count
        }
        #if canImport(Glibc) || canImport(Musl)
            _ = close(reader)
        #endif
        state.exited = true
        condition.unlock()
    }
}
