import SwiftSyntax
import Testing

/// Expansions of `@Command` and of the dispatch `@Model` generates for it.
@Suite("@Command expansion")
struct CommandMacroTests {

    @Test("A command gets a <name>Command function, and the model dispatches received commands")
    func seedCommand() {
        assertPathbaseExpansion(
            """
            @Model(id: 1)
            final class SystemPackage {
                @Property(id: 1)
                var name: String

                @Command(id: 2)
                func install(version: String) {
                }
            }
            """,
            expandedSource: """
                final class SystemPackage {
                    var name: String {
                        get {
                            _$get(1)
                        }
                        set {
                            _$set(newValue, 1)
                        }
                    }
                    func install(version: String) {
                    }

                    /// Creates a command that runs `install` on this instance where it is received.
                    func installCommand(version: String) -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 2, arguments: [version])
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

                \(propertyLookups(model: "SystemPackage", [("1", "name", "String")]))

                    func _$command(_ command: Pathbase.CommandKey, arguments: inout any Swift.UnkeyedDecodingContainer) throws -> (() throws -> Void)? {
                        switch command {
                        case 2:
                            let argument0 = try arguments.decode(String.self)
                            return {
                                self.install(version: argument0)
                            }
                        default:
                            return nil
                        }
                    }
                }

                \(modelConformance("SystemPackage"))
                """
        )
    }

    @Test("Labels, unnamed parameters, defaults, optionals, throwing and returning functions")
    func parameterKinds() {
        assertPathbaseExpansion(
            """
            @Model(id: 2)
            public final class Job {
                @Command(id: 1)
                public func configure(_ key: String, to value: Int? = nil) throws -> Bool {
                    true
                }

                @Command(id: 2)
                func tick(_: Int, at time: Double) {
                }

                @Command(id: 3)
                func stop() -> Void {
                }
            }
            """,
            expandedSource: """
                public final class Job {
                    public func configure(_ key: String, to value: Int? = nil) throws -> Bool {
                        true
                    }

                    /// Creates a command that runs `configure` on this instance where it is received.
                    public func configureCommand(_ key: String, to value: Int? = nil) -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 1, arguments: [key, value])
                    }
                    func tick(_: Int, at time: Double) {
                    }

                    /// Creates a command that runs `tick` on this instance where it is received.
                    func tickCommand(_ argument0: Int, at time: Double) -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 2, arguments: [argument0, time])
                    }
                    func stop() -> Void {
                    }

                    /// Creates a command that runs `stop` on this instance where it is received.
                    func stopCommand() -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 3, arguments: [])
                    }

                \(modelIdentityMembers(modelId: "2", access: "public"))

                    public enum PropertyId: RawRepresentable, CaseIterable {
                        public init?(rawValue: Pathbase.PropertyKey) {
                            nil
                        }
                        public var rawValue: Pathbase.PropertyKey {
                            switch self {
                            }
                        }
                    }

                    /// Creates an instance in a database with every property set, as one batch
                    /// and one undo step.
                    @discardableResult
                    public static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey) -> Self {
                        Pathbase._$inOneStep(database) {
                            let instance = database.create(id: id, of: Self.self)

                            return instance
                        }
                    }

                    /// Writes the default value of every property, then marks the instance deleted.
                    public func deleteAndClearProperties() {
                        Pathbase._$inOneStep(self.database) {

                            self.delete()
                        }
                    }

                    public func _$command(_ command: Pathbase.CommandKey, arguments: inout any Swift.UnkeyedDecodingContainer) throws -> (() throws -> Void)? {
                        switch command {
                        case 1:
                            let argument0 = try arguments.decode(String.self)
                            let argument1 = try arguments.decode(Int?.self)
                            return {
                                _ = try self.configure(argument0, to: argument1)
                            }
                        case 2:
                            let argument0 = try arguments.decode(Int.self)
                            let argument1 = try arguments.decode(Double.self)
                            return {
                                self.tick(argument0, at: argument1)
                            }
                        case 3:
                            return {
                                self.stop()
                            }
                        default:
                            return nil
                        }
                    }
                }

                \(modelConformance("Job"))
                """
        )
    }

    @Test("Stored types: a property's declared type, with T! written as Optional<T>")
    func implicitlyUnwrappedPropertyType() {
        let expanded = expandPathbaseMacros(
            in: """
                @Model(id: 3)
                final class Legacy {
                    @Property(id: 1)
                    var code: Int!

                    @Reference(id: 2)
                    var parent: Legacy!
                }
                """
        ).description
        #expect(expanded.contains("case 1:\n            Optional<Int>.self"))
        #expect(expanded.contains("case 2:\n            Pathbase.InstanceKey?.self"))
    }
}
