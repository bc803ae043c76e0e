import Foundation

/// The asset stores of this process, so that an ``Asset`` read on its own
/// (``Asset/data()``) finds a file with its content: any folder holding its hash holds it.
enum AssetStores {

    private struct WeakStore {
        weak var store: AssetStore?
    }

    private struct State {
        /// Folder stores by path: kept for the process's life, one per folder.
        var persistent: [String: AssetStore] = [:]
        /// Temporary folders of in-memory databases that hold files; they go with their
        /// database.
        var temporary: [ObjectIdentifier: WeakStore] = [:]
    }

    /// Behind the project's `Lock` (pthread): Thread Sanitizer sees its hand-offs, while
    /// `Synchronization.Mutex` locks with futex calls it does not model, and its reliability
    /// run reported the mutex's own state as a race.
    private static let registry = Locked(State())

    private static func withState<Result>(_ body: (inout State) -> Result) -> Result {
        registry.withLock(body)
    }

    /// The one store of `folder`, made by `make` the first time.
    static func persistentStore(at folder: URL, make: (URL) -> AssetStore) -> AssetStore {
        withState { state in
            if let store = state.persistent[folder.path] { return store }
            let store = make(folder)
            state.persistent[folder.path] = store
            return store
        }
    }

    /// Makes a temporary store findable once it holds files.
    static func register(temporary store: AssetStore) {
        withState { state in
            let key = ObjectIdentifier(store)
            guard state.temporary[key]?.store == nil else { return }
            state.temporary = state.temporary.filter { $0.value.store != nil }
            state.temporary[key] = WeakStore(store: store)
        }
    }

    /// A store whose folder has a file for `asset`, or `nil`.
    static func store(holding asset: Asset) -> AssetStore? {
        let stores: [AssetStore] = withState { state in
            Array(state.persistent.values) + state.temporary.values.compactMap(\.store)
        }
        return stores.first { $0.contains(asset) }
    }
}
