import Logging
import Pathbase
import ServiceLifecycle

/// Relays the appends of every server process on a shared store to this process's live
/// connections, for as long as the server runs; reconnects when the store's connection
/// drops (a database restart).
///
/// ```swift
/// let listener = AppendListener(server: server, store: postgresStore, logger: logger)
/// // a service of the application: SyncHTTPServer adds it for an AppendNotifyingStore
/// ```
///
/// Notices sent while the line was down are lost, so on each (re)connect it publishes every
/// subscribed account's latest cursor: a client that missed a notice pulls then.
struct AppendListener: Service {

    let server: SyncServer
    let store: any AppendNotifyingStore
    let logger: Logger

    /// The wait before reconnecting, doubled after each failure up to 30 s.
    var firstRetryDelay: Duration = .milliseconds(250)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var delay = firstRetryDelay
            while !Task.isCancelled {
                do {
                    try await store.listenForAppends(listening: catchUp) { account, cursor in
                        server.changes.publish(cursor: cursor, for: account)
                    }
                    delay = firstRetryDelay
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("live notices interrupted; reconnecting", metadata: ["error": "\(String(reflecting: error))", "retry-in": "\(delay)"])
                }
                do { try await Task.sleep(for: delay) } catch { return }
                delay = min(delay * 2, .seconds(30))
            }
        }
    }

    /// Publishes the latest cursor of every account with live connections.
    private func catchUp() async {
        let watched = server.changes.subscribedAccounts
        guard !watched.isEmpty else { return }
        do {
            for summary in try await store.accountSummaries() where watched.contains(summary.id) {
                server.changes.publish(cursor: summary.latestSequence, for: summary.id)
            }
        } catch {
            logger.warning("could not read the accounts' latest cursors", metadata: ["error": "\(error)"])
        }
    }
}
