import Foundation
import Pathbase
import Testing

@Suite("Codable paths, timestamps and statuses")
struct CodableTests {

    private func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test("Timestamp survives a JSON round trip")
    func timestamp() throws {
        let stamps = [
            HybridLogicalClock(replica: 9).now(),
            Timestamp(time: 1, counter: 2, replica: 3),
            Timestamp.zero,
            Timestamp.max
        ]
        for stamp in stamps {
            #expect(try roundTrip(stamp) == stamp)
        }
    }

    @Test("Path survives a JSON round trip, also as a dictionary key and in arrays")
    func path() throws {
        let path = Path(model: 1, instance: -2, property: 3)
        #expect(try roundTrip(path) == path)
        let paths = [path, Path(model: .max, instance: .min, property: 0)]
        #expect(try roundTrip(paths) == paths)
        let dictionary = [path: "value"]
        #expect(try roundTrip(dictionary) == dictionary)
    }

    @Test("InstanceStatus survives a JSON round trip")
    func status() throws {
        for status in InstanceStatus.allCases {
            #expect(try roundTrip(status) == status)
        }
    }

    @Test("Decoding malformed JSON throws instead of crashing")
    func malformed() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Path.self, from: Data("[1, 2]".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Timestamp.self, from: Data("{\"time\": 1}".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Timestamp.self, from: Data("[1, -1, 0]".utf8))
        }
    }

    @Test("Paths order by model, then instance, then property")
    func pathOrdering() {
        let sorted = [
            Path(model: 2, instance: 0, property: 0),
            Path(model: 1, instance: 2, property: 0),
            Path(model: 1, instance: 1, property: 5),
            Path(model: 1, instance: 1, property: 1)
        ].sorted()
        #expect(
            sorted == [
                Path(model: 1, instance: 1, property: 1),
                Path(model: 1, instance: 1, property: 5),
                Path(model: 1, instance: 2, property: 0),
                Path(model: 2, instance: 0, property: 0)
            ])
    }
}
