import ArgumentParser
import Logging
import PathbaseServer

/// `pathbase compact --database FILE` (or `--postgres URL`): compacts every account's log
/// once, so that a new replica's initial sync pulls what the accounts hold now.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compact the sync server's log: before each account's latest records, keep only the newest record of each path and writer.",
        discussion: """
            A new replica then pulls current values, not every past version; replicas that are \
            nearly caught up still pull the latest records one by one. Safe while `pathbase serve` \
            runs on the same store. `pathbase serve --compact-every SECONDS` does the same on a schedule.
            """
    )

    @OptionGroup var store: ServerStoreOptions

    @OptionGroup var compaction: CompactionOptions

    func validate() throws {
        try store.validate()
        try compaction.validate()
    }

    func run() async throws {
        let keepWhole = compaction.keepWhole
        let report = try await store.withStore(logger: Logger(label: "pathbase.compact")) { store in
            try await CompactionOptions.compacting(store).compactAll(keepingWhole: keepWhole)
        }
        print("pathbase compact: \(report.removed) records removed from \(report.accounts) account\(report.accounts == 1 ? "" : "s")")
    }
}

/// `--keep-whole N`: how many of each account's latest records compaction leaves whole.
struct CompactionOptions: ParsableArguments {

    @Option(name: .customLong("keep-whole"), help: "How many of each account's latest records compaction leaves whole (what replicas that are nearly caught up pull).")
    var keepWhole: Int64 = 10_000

    func validate() throws {
        guard keepWhole >= 0 else { throw ValidationError("--keep-whole must not be negative") }
    }

    /// `store` as a store that compacts; every store of the package is one.
    static func compacting(_ store: any SyncServerStore) throws -> any CompactingStore {
        guard let compacting = store as? any CompactingStore else {
            throw ValidationError("This store (\(type(of: store))) cannot compact")
        }
        return compacting
    }

    /// Compacts every `seconds` until cancelled; a failed compaction is logged and tried again
    /// at the next turn.
    static func compactPeriodically(_ store: any CompactingStore, every seconds: Double, keepWhole: Int64, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(seconds))
            } catch {
                return
            }
            do {
                let report = try await store.compactAll(keepingWhole: keepWhole)
                if report.removed > 0 {
                    logger.info("compacted", metadata: ["removed": "\(report.removed)", "accounts": "\(report.accounts)"])
                }
            } catch {
                logger.error("compaction failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
