import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// A database file's one replica identity, which every open's default clock adopts.
@Suite("Clock identity")
struct ClockIdentityTests {

    @Test("A clock made without an id adopts an identity once; one made with an id keeps it")
    func adoption() {
        let clock = HybridLogicalClock()
        #expect(clock.adoptsIdentity)
        #expect(clock.adoptIdentity(42, earlier: [7, 42]))
        #expect(clock.replica == 42)
        #expect(clock.earlierReplicas == [7])
        #expect(clock.now().replica == 42)
        #expect(!clock.adoptIdentity(43))
        #expect(clock.replica == 42)
        let fixed = HybridLogicalClock(replica: 3)
        #expect(!fixed.adoptIdentity(42))
        #expect(fixed.now().replica == 3)
    }

    @Test(
        "A file written by several ids before it kept an identity adopts them once; its Replica counts their writes",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "edits the file with the sqlite3 tool"))
    func olderFileAdopted() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clock-identity-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for replica: UInt32 in [11, 12] {
            let database = try SQLiteDatabase(path: path, options: .init(clock: HybridLogicalClock(replica: replica)))
            database.set(Int(replica), for: Path(model: 1, instance: Int(replica), property: 1))
            database.close()
        }
        // As a file written before identities were kept: no identity row.
        let tool = try ChildProcess.run("/usr/bin/sqlite3", [path, "DELETE FROM pathbase_meta WHERE key IN ('replica', 'earlierReplicas')"])
        #expect(tool.status == 0, "\(tool.errors)")
        var ids: Set<UInt32> = []
        for _ in 0 ..< 3 {
            let database = try SQLiteDatabase(path: path)
            ids.insert(database.clock.replica)
            #expect(database.clock.earlierReplicas == [11, 12])
            let replica = try Replica(database: database, transport: InProcessNowhere())
            #expect(replica.pendingRecords().count == 2)
            database.close()
        }
        #expect(ids.count == 1)
        #expect(!ids.contains(11) && !ids.contains(12))
    }

    /// A transport never reached.
    private struct InProcessNowhere: SyncTransport {
        struct NoServer: Error {}
        func push(_ request: PushRequest) async throws -> PushResponse { throw NoServer() }
        func pull(_ request: PullRequest) async throws -> PullResponse { throw NoServer() }
    }

    @Test("Every open of a file stamps with the file's id; two connections never stamp alike")
    func fileIdentity() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clock-identity-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Written by two explicit clocks first, as files were before they kept an identity.
        for replica: UInt32 in [11, 12] {
            let database = try SQLiteDatabase(path: path, options: .init(clock: HybridLogicalClock(replica: replica)))
            database.set(Int(replica), for: Path(model: 1, instance: Int(replica), property: 1))
            database.close()
        }
        // The first open stored the first clock's id; the records' ids are adopted.
        var ids: Set<UInt32> = []
        for _ in 0 ..< 3 {
            let database = try SQLiteDatabase(path: path)
            ids.insert(database.clock.replica)
            #expect(database.clock.earlierReplicas == [])
            database.close()
        }
        #expect(ids == [11])
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("clock-identity-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        let first = try SQLiteDatabase(path: fresh)
        let second = try SQLiteDatabase(path: fresh)
        #expect(first.clock.replica == second.clock.replica)
        // Two connections writing in turn never stamp alike.
        var stamps: [Timestamp] = []
        for index in 0 ..< 50 {
            let database = index.isMultiple(of: 2) ? first : second
            let path = Path(model: 1, instance: index, property: 1)
            database.set(index, for: path)
            stamps += database.records(at: path).map(\.timestamp)
        }
        #expect(Set(stamps).count == 50)
        #expect(stamps == stamps.sorted())
        first.close()
        second.close()
    }
}
