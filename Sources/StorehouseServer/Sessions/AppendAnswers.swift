import Journal

/// The journal's answers to a session's appends in flight, in the order it gives them, until the
/// group's end settles them: how many, and which of them failed. An answer is almost always a
/// success, so taking one is a count, with no list to grow per group.
///
///     var answers = AppendAnswers()
///     answers.add(.success(()))                       // true: the first, ask to be settled
///     answers.add(.failure(.closed))                  // false
///     answers.results.map { (try? $0.get()) != nil }  // [true, false]
struct AppendAnswers {
    private(set) var count = 0
    /// The failed answers, by position, in order.
    private var failures: [(position: Int, error: JournalError)] = []

    /// Takes the next answer; true when it is the first since the last settling.
    @discardableResult
    mutating func add(_ result: Result<Void, JournalError>) -> Bool {
        if case .failure(let error) = result { failures.append((count, error)) }
        count += 1
        return count == 1
    }

    /// The answers in order.
    var results: Results { Results(count: count, failures: failures[...]) }

    struct Results: Sequence, IteratorProtocol {
        private var position = 0
        private let count: Int
        private var failures: ArraySlice<(position: Int, error: JournalError)>

        fileprivate init(count: Int, failures: ArraySlice<(position: Int, error: JournalError)>) {
            self.count = count
            self.failures = failures
        }

        mutating func next() -> Result<Void, JournalError>? {
            guard position < count else { return nil }
            defer { position += 1 }
            guard let failure = failures.first, failure.position == position else { return .success(()) }
            failures = failures.dropFirst()
            return .failure(failure.error)
        }
    }
}
