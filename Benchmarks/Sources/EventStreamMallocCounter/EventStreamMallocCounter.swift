import MallocInterposerSwift

// This library exists so that `swift build` builds libMallocInterposerSwift.so (a dependency of it)
// next to netlayer-bench without linking it into netlayer-bench; see EventStreamAllocations.swift.
// netlayer-bench's allocation child preloads libMallocInterposerSwift.so itself, not this library.

/// The interposer's counters, as the child reads them through `dlsym` (unused; keeps the dependency).
public func eventStreamMallocCount() -> Int { MallocInterposerSwift.getStatistics().mallocCount }
