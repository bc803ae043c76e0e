extension Database {

    /// Stores a value whose type is only known at run time, with that type.
    func set(erased value: any DatabaseValue, for path: Path) {
        setOpened(value, for: path)
    }

    private func setOpened<Value: DatabaseValue>(_ value: Value, for path: Path) {
        set(value, for: path)
    }
}

extension HistoryDatabase {

    /// Stores a timestamped value whose type is only known at run time, with that type.
    func set(erased value: any DatabaseValue, for path: Path, timestamp: Timestamp) {
        setOpened(value, for: path, timestamp: timestamp)
    }

    private func setOpened<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        set(value, for: path, timestamp: timestamp)
    }
}
