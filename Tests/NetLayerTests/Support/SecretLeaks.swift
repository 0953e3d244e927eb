import Foundation

/// The first of `secrets` that `text` shows, in any case; nil when none.
func leakedSecret(in text: String, of secrets: [String]) -> String? {
    secrets.first { text.range(of: $0, options: .caseInsensitive) != nil }
}
