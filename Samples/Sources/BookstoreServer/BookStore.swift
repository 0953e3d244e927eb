import Foundation

/// The service's data: books in memory, seeded with a dozen classics.
actor BookStore {
    private var books: [Int: BookRecord] = [:]
    private var nextID = 1
    /// Counts changes to the list of books, so the export knows when it must be made again.
    private(set) var revision = 0

    init(seed: [(title: String, author: String, year: Int)] = BookStore.classics) {
        for entry in seed {
            books[nextID] = BookRecord(id: nextID, title: entry.title, author: entry.author, year: entry.year)
            nextID += 1
        }
    }

    /// Books whose title or author contains `search` (case-insensitive), ordered by id, cut into pages.
    func page(_ page: Int, perPage: Int, search: String?) -> BookPage {
        let needle = search?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let matches = books.values
            .filter {
                needle.isEmpty || $0.title.lowercased().contains(needle)
                    || $0.author.lowercased().contains(needle)
            }
            .sorted { $0.id < $1.id }
        let start = min((page - 1) * perPage, matches.count)
        let end = min(start + perPage, matches.count)
        return BookPage(
            items: Array(matches[start..<end]), page: page, perPage: perPage, total: matches.count,
            totalPages: (matches.count + perPage - 1) / perPage)
    }

    func book(_ id: Int) -> BookRecord? { books[id] }

    func create(title: String, author: String, year: Int?) -> BookRecord {
        let book = BookRecord(id: nextID, title: title, author: author, year: year)
        books[nextID] = book
        nextID += 1
        revision += 1
        return book
    }

    /// Changes the fields given; `nil` when the book does not exist.
    func update(_ id: Int, title: String?, author: String?, year: Int?) -> BookRecord? {
        guard var book = books[id] else { return nil }
        if let title { book.title = title }
        if let author { book.author = author }
        if let year { book.year = year }
        books[id] = book
        revision += 1
        return book
    }

    /// Removes the book; `false` when there was none.
    func delete(_ id: Int) -> Bool {
        guard books.removeValue(forKey: id) != nil else { return false }
        revision += 1
        return true
    }

    /// Every book, ordered by id, with the revision they are at.
    func snapshot() -> (revision: Int, books: [BookRecord]) {
        (revision, books.values.sorted { $0.id < $1.id })
    }

    /// Attaches a cover; `nil` when the book does not exist.
    func setCover(_ cover: CoverRecord) -> BookRecord? {
        guard books[cover.bookId] != nil else { return nil }
        books[cover.bookId]?.cover = cover
        return books[cover.bookId]
    }

    static let classics: [(title: String, author: String, year: Int)] = [
        ("Dune", "Frank Herbert", 1965),
        ("Foundation", "Isaac Asimov", 1951),
        ("I, Robot", "Isaac Asimov", 1950),
        ("Neuromancer", "William Gibson", 1984),
        ("The Left Hand of Darkness", "Ursula K. Le Guin", 1969),
        ("The Dispossessed", "Ursula K. Le Guin", 1974),
        ("Hyperion", "Dan Simmons", 1989),
        ("Snow Crash", "Neal Stephenson", 1992),
        ("The Stars My Destination", "Alfred Bester", 1956),
        ("Solaris", "Stanisław Lem", 1961),
        ("Kindred", "Octavia E. Butler", 1979),
        ("A Wizard of Earthsea", "Ursula K. Le Guin", 1968),
    ]
}
