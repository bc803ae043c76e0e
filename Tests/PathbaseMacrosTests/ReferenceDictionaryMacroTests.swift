import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@ReferenceDictionary`: accessors, and what `@Model` generates for it.
@Suite("@ReferenceDictionary macro")
struct ReferenceDictionaryMacroTests {

    @Test("@ReferenceDictionary reads and writes through the dictionary accessors")
    func accessors() {
        assertPathbaseExpansion(
            """
            @ReferenceDictionary(id: 6)
            var roles: [String: Person]
            """,
            expandedSource: """
                var roles: [String: Person] {
                    get {
                        _$referenceDictionary(6)
                    }
                    set {
                        _$setReferenceDictionary(newValue, 6)
                    }
                }
                """
        )
    }

    @Test("@Model stores [Key: InstanceKey], defaults to [:] and clears to it")
    func model() {
        assertPathbaseExpansion(
            """
            @Model(id: 8)
            final class House {
                @ReferenceDictionary(id: 1)
                var rooms: [Int: Room]
            }
            """,
            expandedSource: """
                final class House {
                    var rooms: [Int: Room] {
                        get {
                            _$referenceDictionary(1)
                        }
                        set {
                            _$setReferenceDictionary(newValue, 1)
                        }
                    }

                    static var modelId: Pathbase.ModelKey {
                        8
                    }

                    let database: any Pathbase.Database

                    let id: Pathbase.InstanceKey

                    required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                        self.database = database
                        self.id = id
                    }

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case rooms = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, rooms: [Int: Room] = [:]) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.rooms = rooms
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.rooms = [:]
                            self.delete()
                        }
                    }

                    static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                        switch property {
                        case 1:
                            Pathbase._$referenceDictionaryStorage([Int: Room].self)
                        default:
                            nil
                        }
                    }

                    static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                        switch keyPath {
                        case \\House.rooms:
                            1
                        default:
                            nil
                        }
                    }

                    static var _$description: Pathbase.ModelDescription {
                        Pathbase.ModelDescription(
                            name: "House",
                            properties: [
                                .referenceDictionary(1, "rooms", \\House.rooms)
                            ]
                        )
                    }
                }

                extension House: Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
                }
                """
        )
    }

    @Test("@ReferenceDictionary on a let is refused like the other wrappers")
    func onLet() {
        assertPathbaseExpansion(
            """
            @ReferenceDictionary(id: 2)
            let rooms: [String: Room]
            """,
            expandedSource: """
                let rooms: [String: Room]
                """,
            diagnostics: [
                DiagnosticSpec(message: "@ReferenceDictionary requires 'var': a stored property can change, so it cannot be a 'let'", line: 2, column: 1)
            ]
        )
    }
}
