import PathbaseMacros
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names they are declared with in `Pathbase`.
let pathbaseMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["ModelProtocol", "ModelWithPropertyIds"]),
    "Property": MacroSpec(type: PropertyMacro.self),
    "Reference": MacroSpec(type: ReferenceMacro.self),
    "ReferenceList": MacroSpec(type: ReferenceListMacro.self),
    "ReferenceDictionary": MacroSpec(type: ReferenceDictionaryMacro.self),
    "Command": MacroSpec(type: CommandMacro.self)
]

/// `assertMacroExpansion` with the Pathbase macros, reporting failures to Swift Testing at
/// the caller's location.
func assertPathbaseExpansion(
    _ originalSource: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        originalSource,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: pathbaseMacros,
        indentationWidth: .spaces(4),
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}

/// Expands the Pathbase macros in a source file, for tests that inspect the expansion's
/// structure rather than its exact text.
func expandPathbaseMacros(in source: String) -> Syntax {
    let sourceFile = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(
        sourceFiles: [sourceFile: .init(moduleName: "TestModule", fullFilePath: "test.swift")]
    )
    return sourceFile.expand(macroSpecs: pathbaseMacros, contextGenerator: { _ in context }, indentationWidth: .spaces(4))
}
