import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// Two connections to one file, each with its own clock: a write must be stamped after
/// what the other connection committed since this one opened, or "the later write wins"
/// breaks between processes (found by `scripts/mutants`, sqlite-clock-not-caught-up-with-file:
/// only a clock lagging behind the file at open was tested).
@Suite("SQLiteDatabase: the clock catches up with what other connections committed")
struct FileClockTests {

    @Test("a connection opened before another wrote an hour ahead still writes the newer value, and its record is stamped after")
    func catchesUpWithOtherConnection() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let path = Path(model: 5, instance: 1, property: 1)
        let first = try SQLiteDatabase(path: file)
        let second = try SQLiteDatabase(path: file)
        // Both are open before the future record is committed: the second's opening could not see it.
        second.set("seen at open", for: Path(model: 5, instance: 2, property: 1))
        let future = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 3_600_000_000, counter: 0, replica: 1)
        first.set("an hour ahead", for: path, timestamp: future)

        second.set("later", for: path)
        let latest = try #require(second.latestRecord(at: path))
        #expect(latest.timestamp > future, "stamped \(latest.timestamp), before the other connection's \(future)")
        #expect(second.get(path) as String? == "later")
        #expect(first.get(path) as String? == "later")
        #expect(second.clock.now() > future)
    }
}
