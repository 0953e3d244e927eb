import NetLayer
import Observation

// Docs/Integration.md, "SwiftUI and @MainActor code": the view model a SwiftUI view would own.
// SwiftUI itself is not on Linux; the view is shown in the doc, the model is compiled and run here.

extension GettingStarted {
    @MainActor @Observable
    final class BookListModel {
        private(set) var books: [Book] = []
        private(set) var errorText: String?

        @ObservationIgnored private let api: BookstoreAPI
        @ObservationIgnored private var searchTask: Task<Void, Never>?

        init(api: BookstoreAPI) {
            self.api = api
        }

        /// For `.task { await model.load() }`: SwiftUI cancels that task when the view goes away.
        func load(search: String? = nil) async {
            do {
                let page = try await api.books().list(search: search)  // off the main actor while it waits
                books = page.items  // back on the main actor
                errorText = nil
            } catch let error as NetLayerError where error.code == .cancelled {
                // The view went away, or a newer search replaced this one: nothing to show.
            } catch {
                errorText = "\(error)"
            }
        }

        /// For a button or a search field: starts a load and cancels the one before it.
        func search(_ text: String) {
            searchTask?.cancel()
            searchTask = Task { await load(search: text) }
        }

        /// For `.onDisappear`: stops a search started from a button.
        func cancel() {
            searchTask?.cancel()
        }

        /// Waits for the search started last (the sample's story uses it; a view does not need it).
        func finishSearch() async {
            await searchTask?.value
        }
    }
}
