import Pathbase
extension AsyncStream where Element: Sendable {

    /// The first `count` elements of the stream, or those that arrived within `timeout`.
    ///
    /// ```swift
    /// let paths = await database.changes.first(3)
    /// #expect(paths.count == 3)   // fails, instead of hanging, when a change never comes
    /// ```
    public func first(_ count: Int, within timeout: Duration = .seconds(60)) async -> [Element] {
        let collected = Locked<[Element]>([])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await element in self {
                    let total = collected.withLock { elements in
                        elements.append(element)
                        return elements.count
                    }
                    if total >= count { return }
                }
            }
            group.addTask {
                // Cancelled when the elements came in time; then there is nothing to do.
                try? await Task.sleep(for: timeout)
            }
            // Whichever ends first ends the other: an AsyncStream stops when its task is cancelled.
            await group.next()
            group.cancelAll()
        }
        return collected.current
    }
}
