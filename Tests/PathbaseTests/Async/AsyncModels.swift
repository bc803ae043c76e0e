import Pathbase

@Model(id: 2600)
final class AsyncTrack {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var plays: Int = 0
}

/// Waits, without blocking a thread, until `condition` holds or about 10 s have passed.
func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0 ..< 1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
