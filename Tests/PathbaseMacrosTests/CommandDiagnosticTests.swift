import Foundation
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Mistakes `@Command` (and `@Model` for the ids of its commands) reject at compile time,
/// each with its message and position. A rejected command generates nothing: no
/// `<name>Command` function and no dispatch.
///
/// As in the `@Model` diagnostic tests, the model's attribute shares line 1 with the class,
/// so that the positions checked are the ones the compiler reports.
@Suite("@Command diagnostics")
struct CommandDiagnosticTests {

    /// The expansion of `@Model(id: 1) final class Tool` without stored properties or
    /// valid commands, around the members as they stay.
    private func toolExpansion(_ members: String) -> String {
        """
        final class Tool {
        \(members)

        \(modelIdentityMembers(modelId: "1"))

            enum PropertyId: RawRepresentable, CaseIterable {
                init?(rawValue: Pathbase.PropertyKey) {
                    nil
                }
                var rawValue: Pathbase.PropertyKey {
                    switch self {
                    }
                }
            }

            /// Creates an instance in a database with every property set, as one batch
            /// and one undo step.
            @discardableResult
            static func create(in database: any Pathbase.Database, id: Pathbase.InstanceKey) -> Self {
                Pathbase._$inOneStep(database) {
                    let instance = database.create(id: id, of: Self.self)

                    return instance
                }
            }

            /// Writes the default value of every property, then marks the instance deleted.
            func deleteAndClearProperties() {
                Pathbase._$inOneStep(self.database) {

                    self.delete()
                }
            }
        }

        \(modelConformance("Tool"))
        """
    }

    /// Checks that a command declared as `attribute` + `function` in `Tool` is rejected
    /// with `message` at `line`:`column` and generates nothing.
    private func expectRejected(
        _ attribute: String,
        _ function: String,
        message: String,
        line: Int,
        column: Int,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        sourceLine: UInt = #line,
        sourceColumn: UInt = #column
    ) {
        assertPathbaseExpansion(
            "@Model(id: 1) final class Tool {\n    \(attribute)\n    \(function)\n}",
            expandedSource: toolExpansion("    \(function)"),
            diagnostics: [DiagnosticSpec(message: message, line: line, column: column)],
            fileID: fileID,
            filePath: filePath,
            line: sourceLine,
            column: sourceColumn
        )
    }

    @Test("A command id that is not an integer literal")
    func nonLiteralId() {
        expectRejected(
            "@Command(id: base + 1)", "func run() {}",
            message: "The id of @Command must be an integer literal, such as @Command(id: 1)",
            line: 2, column: 18
        )
    }

    @Test("A command without an id")
    func missingId() {
        expectRejected(
            "@Command", "func run() {}",
            message: "@Command requires an id, such as @Command(id: 1)",
            line: 2, column: 5
        )
    }

    @Test("Command id 0 is reserved")
    func reservedId() {
        expectRejected(
            "@Command(id: 0)", "func run() {}",
            message: "@Command(id: 0) is reserved for the instance status; use an id other than 0",
            line: 2, column: 18
        )
    }

    @Test(
        "Unsupported parameters: inout, variadic, closures, some, any, metatypes, tuples",
        arguments: [
            ("_ value: inout Int", "value", "is inout"),
            ("values: Int...", "values", "is variadic"),
            ("completion: @escaping () -> Void", "completion", "is a closure"),
            ("handler: ((Int) -> Void)?", "handler", "is a closure"),
            ("value: some Codable", "value", "has an opaque 'some' type"),
            ("value: any Codable", "value", "has an existential 'any' type"),
            ("type: Int.Type", "type", "is a metatype"),
            ("pair: (Int, Int)", "pair", "is a tuple")
        ])
    func unsupportedParameter(parameter: String, name: String, problem: String) {
        expectRejected(
            "@Command(id: 2)", "func run(\(parameter)) {}",
            message: "Parameter '\(name)' \(problem); command arguments are sent as data, so each must be a Codable value",
            line: 3, column: 14
        )
    }

    @Test("A generic command function")
    func genericFunction() {
        expectRejected(
            "@Command(id: 2)", "func run<T: Codable>(value: T) {}",
            message: "@Command cannot be applied to a generic function: the receiving side must know the argument types",
            line: 3, column: 13
        )
    }

    @Test("An async command function")
    func asyncFunction() {
        expectRejected(
            "@Command(id: 2)", "func run() async {}",
            message: "@Command cannot be applied to an async function; start a task inside the command instead",
            line: 3, column: 16
        )
    }

    @Test("A static command function")
    func staticFunction() {
        expectRejected(
            "@Command(id: 2)", "static func run() {}",
            message: "@Command must be applied to an instance method: a command runs on one instance",
            line: 3, column: 5
        )
    }

    @Test("@Command on a property")
    func notAFunction() {
        expectRejected(
            "@Command(id: 2)", "var run: Int { 1 }",
            message: "@Command can only be applied to a function",
            line: 2, column: 5
        )
    }

    @Test("@Command outside a model's class body")
    func outsideModel() {
        assertPathbaseExpansion(
            """
            extension Tool {
                @Command(id: 2)
                func run() {}
            }
            """,
            expandedSource: """
                extension Tool {
                    func run() {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Command must be declared in the body of a @Model class, which dispatches received commands", line: 2, column: 5)
            ]
        )
    }

    @Test("Two commands with one id: reported on the second, naming both; the first still works")
    func duplicateCommandId() {
        assertPathbaseExpansion(
            "@Model(id: 1) final class Tool {\n    @Command(id: 2)\n    func start() {}\n\n    @Command(id: 2)\n    func stop() {}\n}",
            expandedSource: toolExpansion(
                """
                    func start() {}

                    /// Creates a command that runs `start` on this instance where it is received.
                    func startCommand() -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 2, arguments: [])
                    }
                    func stop() {}

                    /// Creates a command that runs `stop` on this instance where it is received.
                    func stopCommand() -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 2, arguments: [])
                    }
                """
            ).replacingOccurrences(
                of: "            self.delete()\n        }\n    }\n}",
                with: """
                                self.delete()
                            }
                        }

                        func _$command(_ command: Pathbase.CommandKey, arguments: inout any Swift.UnkeyedDecodingContainer) throws -> (() throws -> Void)? {
                            switch command {
                            case 2:
                                return {
                                    self.start()
                                }
                            default:
                                return nil
                            }
                        }
                    }
                    """),
            diagnostics: [
                DiagnosticSpec(message: "Command id 2 of 'stop' is already used by 'start'; each command of a model needs a unique id", line: 5, column: 5)
            ]
        )
    }

    @Test("A command id used by a property: commands and properties share ids")
    func idUsedByProperty() {
        assertPathbaseExpansion(
            "@Model(id: 1) final class Tool {\n    @Property(id: 3)\n    var name: String\n\n    @Command(id: 3)\n    func rename() {}\n}",
            expandedSource: """
                final class Tool {
                    var name: String {
                        get {
                            _$get(3)
                        }
                        set {
                            _$set(newValue, 3)
                        }
                    }
                    func rename() {}

                    /// Creates a command that runs `rename` on this instance where it is received.
                    func renameCommand() -> Pathbase.InstanceCommand {
                        Pathbase.InstanceCommand(model: Self.modelId, instance: self.id, command: 3, arguments: [])
                    }

                \(modelIdentityMembers(modelId: "1"))

                    enum PropertyId: Pathbase.PropertyKey, CaseIterable {
                        case name = 3
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

                \(propertyLookups(model: "Tool", [("3", "name", "String")]))
                }

                \(modelConformance("Tool"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "Command id 3 of 'rename' is already used by property 'name'; commands and properties of a model share ids", line: 5, column: 5)
            ]
        )
    }
}
