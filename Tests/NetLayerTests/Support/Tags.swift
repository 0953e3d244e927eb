import Testing

extension Tag {
    /// A test that pins hostile or careless input — from callers, interceptors or servers — to a typed
    /// error, a clamp or a masked secret, and nothing unchecked sent (DESIGN §17). Run them alone with
    /// `swift test --filter .tags:hardening` (Swift Testing 6.2 and later).
    @Tag static var hardening: Self
}
