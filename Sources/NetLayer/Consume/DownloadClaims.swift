import Foundation

/// An exclusive claim a running `download(to:)` call holds on its destination, in this process.
///
/// Two calls to one destination share the files beside it (`.<name>.netlayer-partial` and its
/// record), and a finished call replaces the destination and removes the resumable partial file:
/// run at once, one would write into, move or remove the other's file. So a call takes the claim
/// after checking its destination and before sending anything, and a second call while it is held
/// is refused. The registry is per process; across processes the partial file is guarded by an
/// advisory lock (`flock`) instead, see ``DownloadFiles``.
final class DownloadClaim: Sendable {
    /// The destinations claimed now, by ``key(of:)``.
    private static let held = LockedValue<Set<String>>([])

    /// The destination's key in ``held``.
    let key: String
    /// Whether ``release()`` has run: the key is removed once, never again after another call took it.
    private let released = LockedValue(false)

    private init(key: String) { self.key = key }

    /// Claims `destination`, or throws `.fileFailed` when another call holds it.
    static func take(_ destination: URL) throws(NetLayerError) -> DownloadClaim {
        let key = key(of: destination)
        guard held.withLock({ $0.insert(key).inserted }) else {
            throw .fileFailed("another download to \(destination.path) is in progress")
        }
        return DownloadClaim(key: key)
    }

    /// The destination's path with `.`, `..` and symbolic links in its directory resolved, so two
    /// spellings of one file are one key. The file itself is not resolved: a symbolic link at the
    /// destination is replaced, not followed.
    static func key(of destination: URL) -> String {
        let directory = destination.deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath()
        return directory.appendingPathComponent(destination.lastPathComponent).standardizedFileURL.path
    }

    /// Whether a call holds `destination` now.
    static func isHeld(_ destination: URL) -> Bool {
        let key = key(of: destination)
        return held.withLock { $0.contains(key) }
    }

    /// Gives the destination up; later calls do nothing.
    func release() {
        let first = released.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        _ = Self.held.withLock { $0.remove(key) }
    }

    deinit { release() }
}
