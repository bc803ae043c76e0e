import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct PathbasePlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        PropertyMacro.self,
        ReferenceMacro.self,
        ReferenceListMacro.self,
        ReferenceDictionaryMacro.self,
        CommandMacro.self
    ]
}
