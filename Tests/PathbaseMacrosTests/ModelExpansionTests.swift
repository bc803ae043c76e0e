import SwiftSyntax
import Testing

/// Expansions of `@Model` together with the property wrapper macros.
@Suite("@Model expansion")
struct ModelExpansionTests {

    @Test("A typical model gets every generated member, its accessors and the conformance")
    func typicalModel() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Person {
                @Property(id: 1)
                var name: String

                @Property(id: 2)
                var age: Int = 18

                @Reference(id: 3)
                var partner: Person?

                @ReferenceList(id: 4)
                var friends: [Person]
            }
            """,
            expandedSource: """
                final class Person {
                    var name: String {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }
                    var age: Int {
                        get {
                            _$get(2, default: 18)
                        }
                        set {
                            _$set(newValue, 2)
                        }
                        init(initialValue) {
                        }
                    }
                    var partner: Person? {
                        get {
                            _$reference(3)
                        }
                        set {
                            _$setReference(newValue, 3)
                        }
                    }
                    var friends: [Person] {
                        get {
                            _$referenceList(4)
                        }
                        set {
                            _$setReferenceList(newValue, 4)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case name = 1
                        case age = 2
                        case partner = 3
                        case friends = 4
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, name: String = Pathbase._$defaultValue(), age: Int = (18), partner: Person? = nil, friends: [Person] = Pathbase._$emptyList()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.name = name
                            instance.age = age
                            instance.partner = partner
                            instance.friends = friends
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.name = Pathbase._$defaultValue()
                            self.age = (18)
                            self.partner = nil
                            self.friends = Pathbase._$emptyList()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Person", [("1", "name", "String"), ("2", "age", "Int"), ("3", "partner", "Pathbase.InstanceKey?"), ("4", "friends", "[Pathbase.InstanceKey]")]))
                }

                \(modelConformance("Person"))
                """
        )
    }

    @Test("Initial values of references and reference lists become defaults, as for properties")
    func initialValuesOfEveryKind() {
        assertPathbaseExpansion(
            """
            @Model(id: 5)
            final class Team {
                @Property(id: 1)
                var tags: [String] = []

                @Reference(id: 2)
                var lead: Person? = nil

                @ReferenceList(id: 3)
                var members: Set<Person> = []
            }
            """,
            expandedSource: """
                final class Team {
                    var tags: [String] {
                        get {
                            _$get(1, default: [])
                        }
                        set {
                            _$set(newValue, 1)
                        }
                        init(initialValue) {
                        }
                    }
                    var lead: Person? {
                        get {
                            _$reference(2)
                        }
                        set {
                            _$setReference(newValue, 2)
                        }
                        init(initialValue) {
                        }
                    }
                    var members: Set<Person> {
                        get {
                            _$referenceList(3)
                        }
                        set {
                            _$setReferenceList(newValue, 3)
                        }
                        init(initialValue) {
                        }
                    }

                \(modelIdentityMembers(modelId: "5"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case tags = 1
                        case lead = 2
                        case members = 3
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, tags: [String] = ([]), lead: Person? = (nil), members: Set<Person> = ([])) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.tags = tags
                            instance.lead = lead
                            instance.members = members
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.tags = ([])
                            self.lead = (nil)
                            self.members = ([])
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Team", [("1", "tags", "[String]"), ("2", "lead", "Pathbase.InstanceKey?"), ("3", "members", "[Pathbase.InstanceKey]")]))
                }

                \(modelConformance("Team"))
                """
        )
    }

    @Test("A model id that is not a literal is used as written")
    func nonLiteralModelId() {
        assertPathbaseExpansion(
            """
            @Model(id: ModelId.item.rawValue)
            final class Item {
                @Property(id: 1)
                var count: Int
            }
            """,
            expandedSource: """
                final class Item {
                    var count: Int {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }

                \(modelIdentityMembers(modelId: "ModelId.item.rawValue"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case count = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, count: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.count = count
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.count = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Item", [("1", "count", "Int")]))
                }

                \(modelConformance("Item"))
                """
        )
    }

    @Test("Computed properties and plain 'let's are left alone, without diagnostics")
    func computedPropertyAndPlainLetAreAccepted() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Person {
                @Property(id: 1)
                var name: String

                var greeting: String { "Hello, " + name }

                let nickname = "Bob"
            }
            """,
            expandedSource: """
                final class Person {
                    var name: String {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }

                    var greeting: String { "Hello, " + name }

                    let nickname = "Bob"

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case name = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, name: String = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.name = name
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.name = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Person", [("1", "name", "String")]))
                }

                \(modelConformance("Person"))
                """
        )
    }

    /// An enum with no cases cannot declare a raw type, so a model without stored properties
    /// (or whose properties are all rejected) gets a `PropertyId` that spells out its
    /// `RawRepresentable` conformance instead of `enum PropertyId: Pathbase.PropertyKey`.
    @Test("A model without stored properties gets a PropertyId type that compiles")
    func modelWithoutProperties() {
        let expanded = expandPathbaseMacros(
            in: """
                @Model(id: 1)
                final class Empty {
                    var note: String { "No stored properties" }
                }
                """)
        let declarations = expanded.tokens(viewMode: .sourceAccurate)
            .filter { $0.text == "PropertyId" }
            .compactMap { $0.parent?.as(DeclSyntax.self) }
        #expect(declarations.count == 1, "Expected one PropertyId declaration in:\n\(expanded)")
        guard let propertyId = declarations.first?.as(EnumDeclSyntax.self) else { return }
        let hasCases = propertyId.memberBlock.members.contains { $0.decl.is(EnumCaseDeclSyntax.self) }
        let rawType = propertyId.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription
        let declaresRawType = ["Pathbase.PropertyKey", "PropertyKey", "Int", "Swift.Int"].contains(rawType)
        #expect(hasCases || !declaresRawType, "Generated PropertyId does not compile:\n\(propertyId.trimmedDescription)")
    }
}
