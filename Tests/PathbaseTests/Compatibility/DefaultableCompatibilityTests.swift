import Foundation
import Pathbase
import Testing

// Model ids 3702–3703.

/// A value type with a `Defaultable` conformance as StateModel users write it.
enum Severity: Int, Codable, Sendable {
    case minor, major, critical
}

// The StateModel spelling compiles with a deprecation warning that names `defaultValue`;
// deprecating the conformance keeps this test target free of warnings.
@available(*, deprecated)
extension Severity: Defaultable {
    static let `default` = Severity.major
}

/// A value type with a conformance in Pathbase's spelling.
struct Budget: Codable, Equatable, Sendable, Defaultable {
    var amount: Int
    static let defaultValue = Budget(amount: 100)
}

@available(*, deprecated)
@Model(id: 3702)
final class Incident {
    @Property(id: 1)
    var severity: Severity

    @Property(id: 2)
    var budget: Budget
}

@Suite("StateModel compatibility: Defaultable written with `default`")
struct DefaultableCompatibilityTests {

    @available(*, deprecated)
    @Test("A conformance giving `static let default` serves as the default of a property")
    func stateModelSpelling() {
        let database = InMemoryDatabase()
        let incident = Incident.create(in: database, id: 1)
        #expect(incident.severity == .major)
        #expect(Severity.defaultValue == .major)
        incident.severity = .critical
        #expect(incident.severity == .critical)
    }

    @Test("A conformance giving `defaultValue` also answers to StateModel's `default`")
    func pathbaseSpelling() {
        #expect(Budget.default == Budget(amount: 100))
        #expect(Int.default == 0)
        #expect(String.default == "")
        #expect([Int].default == [])
    }

    @available(*, deprecated)
    @Test("Both spellings work side by side in one model")
    func mixed() {
        let database = InMemoryDatabase()
        let incident = Incident.create(in: database, id: 2)
        #expect(incident.budget == Budget(amount: 100))
        #expect(incident.severity == .major)
    }
}
