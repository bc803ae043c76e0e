import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

@Suite("AccountChanges: the fan-out of new-record notices to live connections")
struct AccountChangesTests {

    @Test("a subscriber keeps only the newest cursor; older and repeated notices are dropped")
    func newestOnly() async {
        let changes = AccountChanges()
        let account = AccountID(rawValue: 1)
        let notices = changes.subscribe(account)
        changes.publish(cursor: 3, for: account)
        changes.publish(cursor: 7, for: account)
        changes.publish(cursor: 5, for: account) // heard from the store after the push: older
        changes.publish(cursor: 7, for: account)
        #expect(changes.latestPublished(for: account) == 7)
        changes.disconnectAll()
        var heard: [Int64] = []
        for await cursor in notices { heard.append(cursor) }
        #expect(heard == [7])
        #expect(changes.subscriberCount == 0)
    }

    @Test("8 threads subscribing, publishing and dropping at once: every live subscriber ends on the last cursor, none is left behind")
    func concurrentUse() async {
        let changes = AccountChanges()
        let accounts = (1 ... 4).map { AccountID(rawValue: $0) }
        let threads = 8
        let rounds = 500
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let account = accounts[thread % accounts.count]
            for round in 1 ... rounds {
                // Half the threads publish, half subscribe and drop, on the same accounts.
                if thread % 2 == 0 {
                    changes.publish(cursor: Int64(round), for: account)
                } else {
                    let notices = changes.subscribe(account)
                    _ = notices // dropped at once: its subscription must go with it
                }
            }
        }
        #expect(changes.subscriberCount == 0)

        let final = accounts.map { changes.subscribe($0) }
        #expect(changes.subscriberCount == accounts.count)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let account = accounts[thread % accounts.count]
            for round in 1 ... rounds { changes.publish(cursor: Int64(rounds + round), for: account) }
        }
        changes.disconnectAll()
        var lastHeard: [Int64?] = []
        for notices in final {
            var last: Int64?
            for await cursor in notices { last = cursor }
            lastHeard.append(last)
        }
        #expect(lastHeard == Array(repeating: Int64(2 * rounds), count: accounts.count))
    }
}
