import Pathbase
import Testing

// Raw paths of model 1390 only.

@Suite("InMemoryDatabase: storage of values that change type")
struct InMemoryDatabaseSlotTests {

    @Test("A path whose value changes type back and forth keeps two slots, and reads the latest value")
    func typeChangesReuseSlots() {
        let database = InMemoryDatabase()
        let paths = (1 ... 10).map { Path(model: 1390, instance: $0, property: 1) }
        for path in paths { database.set(0, for: path) }
        let before = database.valueSlotCount
        for round in 1 ... 1_000 {
            for path in paths {
                if round.isMultiple(of: 2) {
                    database.set(round, for: path)
                } else {
                    database.set("round \(round)", for: path)
                }
            }
        }
        #expect(database.valueSlotCount <= before + paths.count, "slots left behind by type changes were not reused")
        for path in paths {
            let number: Int? = database.get(path)
            let text: String? = database.get(path)
            #expect(number == 1_000)
            #expect(text == nil)
        }
        database.set("last", for: paths[0])
        #expect(database.get(paths[0]) as String? == "last")
        #expect(database.get(paths[1]) as Int? == 1_000)
    }
}
