// mattt/EventSource's `EventSource.Event` and `EventSource.Parser`, compiled from the resolved
// checkout by the ExtractEventSourceParser plugin (see Plugins/ExtractEventSourceParser): the rest of
// that package does not build on Linux. This module adds nothing to them.
