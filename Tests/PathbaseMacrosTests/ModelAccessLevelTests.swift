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

                public static var modelId: Pathbase.ModelKey {
                    2
                }

                public let database: any Pathbase.Database

                public let id: Pathbase.InstanceKey

                public required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                    self.database = database
                    self.id = id
                }

                public enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                    case title = 1
                }

                /// Creates an instance in a database with every property set.
                @discardableResult
                public static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, title: String = ("Untitled")) -> Self {
                    let instance = database.create(id: id, of: Self.self)
                    instance.title = title
                    return instance
                }

                /// Writes the default value of every property, then marks the instance deleted.
                public func deleteAndClearProperties() {
                    self.title = ("Untitled")
                    self.delete()
                }

                public static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                    switch property {
                    case 1:
                        String.self
                    default:
                        nil
                    }
                }

                public static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                    switch keyPath {
                    case \\Item.title:
                        1
                    default:
                        nil
                    }
                }
            }

            extension Item: Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
            }
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

                fileprivate static var modelId: Pathbase.ModelKey {
                    3
                }

                fileprivate let database: any Pathbase.Database

                fileprivate let id: Pathbase.InstanceKey

                fileprivate required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                    self.database = database
                    self.id = id
                }

                fileprivate enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                    case code = 1
                }

                /// Creates an instance in a database with every property set.
                @discardableResult
                fileprivate static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, code: Int = Pathbase._$defaultValue()) -> Self {
                    let instance = database.create(id: id, of: Self.self)
                    instance.code = code
                    return instance
                }

                /// Writes the default value of every property, then marks the instance deleted.
                fileprivate func deleteAndClearProperties() {
                    self.code = Pathbase._$defaultValue()
                    self.delete()
                }

                fileprivate static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                    switch property {
                    case 1:
                        Int.self
                    default:
                        nil
                    }
                }

                fileprivate static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                    switch keyPath {
                    case \\Secret.code:
                        1
                    default:
                        nil
                    }
                }
            }

            extension Secret: Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
            }
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

                public static var modelId: Pathbase.ModelKey {
                    4
                }

                public let database: any Pathbase.Database

                public let id: Pathbase.InstanceKey

                public required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                    self.database = database
                    self.id = id
                }

                public enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                    case parent = 1
                }

                /// Creates an instance in a database with every property set.
                @discardableResult
                public static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, parent: Base? = nil) -> Self {
                    let instance = database.create(id: id, of: Self.self)
                    instance.parent = parent
                    return instance
                }

                /// Writes the default value of every property, then marks the instance deleted.
                public func deleteAndClearProperties() {
                    self.parent = nil
                    self.delete()
                }

                public static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                    switch property {
                    case 1:
                        Pathbase.InstanceKey?.self
                    default:
                        nil
                    }
                }

                public static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                    switch keyPath {
                    case \\Base.parent:
                        1
                    default:
                        nil
                    }
                }
            }

            extension Base: Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
            }
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

                package static var modelId: Pathbase.ModelKey {
                    6
                }

                package let database: any Pathbase.Database

                package let id: Pathbase.InstanceKey

                package required init(database: any Pathbase.Database, id: Pathbase.InstanceKey) {
                    self.database = database
                    self.id = id
                }

                package enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                    case items = 1
                }

                /// Creates an instance in a database with every property set.
                @discardableResult
                package static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey, items: [Shared] = Pathbase._$emptyList()) -> Self {
                    let instance = database.create(id: id, of: Self.self)
                    instance.items = items
                    return instance
                }

                /// Writes the default value of every property, then marks the instance deleted.
                package func deleteAndClearProperties() {
                    self.items = Pathbase._$emptyList()
                    self.delete()
                }

                package static func _$propertyType(_ property: Pathbase.PropertyKey) -> (any Pathbase.DatabaseValue.Type)? {
                    switch property {
                    case 1:
                        [Pathbase.InstanceKey].self
                    default:
                        nil
                    }
                }

                package static func _$propertyKey(for keyPath: Swift.AnyKeyPath) -> Pathbase.PropertyKey? {
                    switch keyPath {
                    case \\Shared.items:
                        1
                    default:
                        nil
                    }
                }
            }

            extension Shared: Pathbase.ModelProtocol, Pathbase.ModelWithPropertyIds {
            }
            """
        )
    }
}
