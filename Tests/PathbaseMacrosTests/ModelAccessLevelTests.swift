import Testing

/// Generated members take the access level of the class, so that the conformance to
/// `ModelProtocol` holds wherever the class is visible.
@Suite("@Model access levels")
struct ModelAccessLevelTests {

    @Test("A public class gets public members")
    func publicClass() {
        assertPathbaseExpansion(
            """
            @Model(id: 2)
            public final class Item {
                @Property(id: 1)
                public var title: String = "Untitled"
            }
            """,
            expandedSource: """
                public final class Item {
                    public var title: String {
                        get {
                            _$get(1, default: "Untitled")
                        }
                        set {
                            _$set(newValue, 1)
                        }
                        init(initialValue) {
                        }
                    }

                \(modelIdentityMembers(modelId: "2", access: "public"))

                    public enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case title = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    public static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, title: String = ("Untitled")) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.title = title
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    public func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.title = ("Untitled")
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Item", access: "public", [("1", "title", "String")]))
                }

                \(modelConformance("Item"))
                """
        )
    }

    @Test("A private class gets fileprivate members, visible to its conformance")
    func privateClass() {
        assertPathbaseExpansion(
            """
            @Model(id: 3)
            private class Secret {
                @Property(id: 1)
                var code: Int
            }
            """,
            expandedSource: """
                private class Secret {
                    var code: Int {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }

                \(modelIdentityMembers(modelId: "3", access: "fileprivate"))

                    fileprivate enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case code = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    fileprivate static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, code: Int = Pathbase._$defaultValue()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.code = code
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    fileprivate func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.code = Pathbase._$defaultValue()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Secret", access: "fileprivate", [("1", "code", "Int")]))
                }

                \(modelConformance("Secret"))
                """
        )
    }

    @Test("An open class gets public members")
    func openClass() {
        assertPathbaseExpansion(
            """
            @Model(id: 4)
            open class Base {
                @Reference(id: 1)
                open var parent: Base?
            }
            """,
            expandedSource: """
                open class Base {
                    open var parent: Base? {
                        get {
                            _$reference(1)
                        }
                        set {
                            _$setReference(newValue, 1)
                        }
                    }

                \(modelIdentityMembers(modelId: "4", access: "public"))

                    public enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case parent = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    public static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, parent: Base? = nil) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.parent = parent
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    public func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.parent = nil
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Base", access: "public", [("1", "parent", "Pathbase.InstanceKey?")]))
                }

                \(modelConformance("Base"))
                """
        )
    }

    @Test("A package class gets package members")
    func packageClass() {
        assertPathbaseExpansion(
            """
            @Model(id: 6)
            package final class Shared {
                @ReferenceList(id: 1)
                package var items: [Shared]
            }
            """,
            expandedSource: """
                package final class Shared {
                    package var items: [Shared] {
                        get {
                            _$referenceList(1)
                        }
                        set {
                            _$setReferenceList(newValue, 1)
                        }
                    }

                \(modelIdentityMembers(modelId: "6", access: "package"))

                    package enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case items = 1
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    package static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, items: [Shared] = Pathbase._$emptyList()) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)
                            instance.items = items
                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    package func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {
                            self.items = Pathbase._$emptyList()
                            self.delete()
                        }
                    }

                \(propertyLookups(model: "Shared", access: "package", [("1", "items", "[Pathbase.InstanceKey]")]))
                }

                \(modelConformance("Shared"))
                """
        )
    }
}
