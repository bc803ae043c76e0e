import Pathbase
import Testing

/// The test matrix itself: every database kind still has the capabilities its tests are
/// declared to use, so that no test silently skips a kind that lost one.
@Suite("Test matrix: every database kind has the capabilities its tests rely on")
struct DatabaseKindCapabilityTests {

    @Test("Kinds declared with history are HistoryDatabases", arguments: DatabaseKind.allCases)
    func history(kind: DatabaseKind) {
        if kind.keepsHistory, !(kind.make() is any HistoryDatabase) {
            Issue.record("\(kind) is declared to keep history but is no longer a HistoryDatabase: the history checks would skip it")
        }
    }

    @Test("Kinds declared prunable are PrunableHistoryDatabases", arguments: HistoryDatabaseKind.allCases)
    func pruning(kind: HistoryDatabaseKind) {
        if kind.isPrunable, !(kind.make() is any PrunableHistoryDatabase) {
            Issue.record("\(kind) is declared prunable but can no longer prune: the pruning tests would skip it")
        }
    }
}
