import SwiftSyntaxMacrosGenericTestSupport
import Testing

// Tests of id diagnostics write `@Model(id: 1) final class ... {` on one line. The test
// harness of swift-syntax locates a diagnostic on an attribute's argument relative to the
// attribute itself (it folds operators in the attribute, which detaches it from the file),
// while the compiler locates it in the file. With the property's attribute on line 2, both
// agree, so the positions below are the ones the compiler reports.

/// Mistakes the macros reject at compile time, each with its message and position.
@Suite("@Model diagnostics")
struct ModelDiagnosticTests {

    @Test("@Model on a struct")
    func modelOnStruct() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            struct Point {
                var x: Int
            }
            """,
            expandedSource: """
                struct Point {
                    var x: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model can only be applied to a class, not to a struct", line: 1, column: 1)
            ]
        )
    }

    @Test("@Model on an enum")
    func modelOnEnum() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            enum Kind {
                case small
            }
            """,
            expandedSource: """
                enum Kind {
                    case small
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model can only be applied to a class, not to an enum", line: 1, column: 1)
            ]
        )
    }

    @Test("@Model on an actor")
    func modelOnActor() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            actor Worker {
                var count = 0
            }
            """,
            expandedSource: """
                actor Worker {
                    var count = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model can only be applied to a class, not to an actor", line: 1, column: 1)
            ]
        )
    }

    @Test("Two properties with one id: reported on the second, naming both")
    func duplicatePropertyIds() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Person {
                @Property(id: 1)
                var name: String

                @Property(id: 1)
                var nickname: String
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
                    var nickname: String {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }

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
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Property id 1 of 'nickname' is already used by 'name'; each property of a model needs a unique id",
                    line: 6,
                    column: 5
                )
            ]
        )
    }

    @Test("A reference and a reference list with one id")
    func duplicateIdsAcrossKinds() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Folder {
                @Reference(id: 2)
                var parent: Folder?

                @ReferenceList(id: 2)
                var children: [Folder]
            }
            """,
            expandedSource: """
                final class Folder {
                    var parent: Folder? {
                        get {
                            _$reference(2)
                        }
                        set {
                            _$setReference(newValue, 2)
                        }
                    }
                    var children: [Folder] {
                        get {
                            _$referenceList(2)
                        }
                        set {
                            _$setReferenceList(newValue, 2)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case parent = 2
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, parent: Folder? = nil) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.parent = parent
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.parent = nil
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Folder", [("2", "parent", "Pathbase.InstanceKey?")]))
                }

                \(modelConformance("Folder"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Property id 2 of 'children' is already used by 'parent'; each property of a model needs a unique id",
                    line: 6,
                    column: 5
                )
            ]
        )
    }

    @Test("A property id that is not an integer literal")
    func nonLiteralPropertyId() {
        assertPathbaseExpansion(
            """
            @Model(id: 1) final class Person {
                @Property(id: someConstant)
                var name: String

                @Property(id: 2)
                var age: Int
            }
            """,
            expandedSource: """
                final class Person {
                    var name: String
                    var age: Int {
                        get {
                            _$get(2)
                        }
                        set {
                            _$set(newValue, 2)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case age = 2
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, age: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.age = age
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.age = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Person", [("2", "age", "Int")]))
                }

                \(modelConformance("Person"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "The id of @Property must be an integer literal, such as @Property(id: 1)", line: 2, column: 19)
            ]
        )
    }

    @Test("Property id 0 is reserved")
    func reservedPropertyId() {
        assertPathbaseExpansion(
            """
            @Model(id: 1) final class Person {
                @Property(id: 0)
                var name: String

                @Property(id: 2)
                var age: Int
            }
            """,
            expandedSource: """
                final class Person {
                    var name: String
                    var age: Int {
                        get {
                            _$get(2)
                        }
                        set {
                            _$set(newValue, 2)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case age = 2
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, age: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.age = age
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.age = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Person", [("2", "age", "Int")]))
                }

                \(modelConformance("Person"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Property(id: 0) is reserved for the instance status; use an id other than 0", line: 2, column: 19)
            ]
        )
    }

    @Test("A wrapper on a 'let'")
    func wrapperOnLet() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Person {
                @Property(id: 1)
                let name: String

                @Property(id: 2)
                var age: Int
            }
            """,
            expandedSource: """
                final class Person {
                    let name: String
                    var age: Int {
                        get {
                            _$get(2)
                        }
                        set {
                            _$set(newValue, 2)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case age = 2
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, age: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.age = age
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.age = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Person", [("2", "age", "Int")]))
                }

                \(modelConformance("Person"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Property requires 'var': a stored property can change, so it cannot be a 'let'", line: 4, column: 5)
            ]
        )
    }

    @Test("A property without a type annotation")
    func missingTypeAnnotation() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class Counter {
                @Property(id: 1) var x = 5

                @Property(id: 2)
                var y: Int
            }
            """,
            expandedSource: """
                final class Counter {
                    var x = 5
                    var y: Int {
                        get {
                            _$get(2)
                        }
                        set {
                            _$set(newValue, 2)
                        }
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case y = 2
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, y: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.y = y
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.y = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Counter", [("2", "y", "Int")]))
                }

                \(modelConformance("Counter"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Property requires an explicit type annotation, such as 'var name: String'", line: 3, column: 26)
            ]
        )
    }
}
