import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Property`, `@Reference` and `@ReferenceList` on their own: accessors only.
@Suite("Property wrapper macros")
struct PropertyMacroTests {

    @Test("@Property without an initial value reads the type's default")
    func propertyWithoutInitialValue() {
        assertPathbaseExpansion(
            """
            @Property(id: 43)
            var count: Int
            """,
            expandedSource: """
                var count: Int {
                    get {
                        _$get(43)
                    }
                    set {
                        _$set(newValue, 43)
                    }
                }
                """
        )
    }

    @Test("@Property with an initial value reads it as the default and keeps it with an init accessor")
    func propertyWithInitialValue() {
        assertPathbaseExpansion(
            """
            @Property(id: 42)
            var value: String = "Default"
            """,
            expandedSource: """
                var value: String {
                    get {
                        _$get(42, default: "Default")
                    }
                    set {
                        _$set(newValue, 42)
                    }
                    init(initialValue) {
                    }
                }
                """
        )
    }

    @Test("@Reference")
    func reference() {
        assertPathbaseExpansion(
            """
            @Reference(id: 3)
            var contained: NestedModel?
            """,
            expandedSource: """
                var contained: NestedModel? {
                    get {
                        _$reference(3)
                    }
                    set {
                        _$setReference(newValue, 3)
                    }
                }
                """
        )
    }

    @Test("@Reference with an implicitly unwrapped type")
    func implicitlyUnwrappedReference() {
        assertPathbaseExpansion(
            """
            @Reference(id: 3)
            var owner: Person!
            """,
            expandedSource: """
                var owner: Person! {
                    get {
                        _$reference(3)
                    }
                    set {
                        _$setReference(newValue, 3)
                    }
                }
                """
        )
    }

    @Test("@ReferenceList")
    func referenceList() {
        assertPathbaseExpansion(
            """
            @ReferenceList(id: 1)
            var other: [NestedModel]
            """,
            expandedSource: """
                var other: [NestedModel] {
                    get {
                        _$referenceList(1)
                    }
                    set {
                        _$setReferenceList(newValue, 1)
                    }
                }
                """
        )
    }

    @Test("@ReferenceList with a Set")
    func referenceListSet() {
        assertPathbaseExpansion(
            """
            @ReferenceList(id: 4)
            var friends: Set<Person>
            """,
            expandedSource: """
                var friends: Set<Person> {
                    get {
                        _$referenceList(4)
                    }
                    set {
                        _$setReferenceList(newValue, 4)
                    }
                }
                """
        )
    }

    @Test("Digit separators in an id are kept as written")
    func digitSeparators() {
        assertPathbaseExpansion(
            """
            @Property(id: 1_000)
            var big: Int
            """,
            expandedSource: """
                var big: Int {
                    get {
                        _$get(1_000)
                    }
                    set {
                        _$set(newValue, 1_000)
                    }
                }
                """
        )
    }

    @Test("Diagnostics of @Reference name @Reference")
    func referenceDiagnostics() {
        assertPathbaseExpansion(
            """
            @Reference(id: 0)
            var partner: Person?
            """,
            expandedSource: """
                var partner: Person?
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Reference(id: 0) is reserved for the instance status; use an id other than 0", line: 1, column: 16)
            ]
        )
    }

    @Test("Diagnostics of @ReferenceList name @ReferenceList")
    func referenceListDiagnostics() {
        assertPathbaseExpansion(
            """
            @ReferenceList(id: 1)
            let friends: [Person]
            """,
            expandedSource: """
                let friends: [Person]
                """,
            diagnostics: [
                DiagnosticSpec(message: "@ReferenceList requires 'var': a stored property can change, so it cannot be a 'let'", line: 2, column: 1)
            ]
        )
    }

    /// `0x10` is an integer literal like any other: it is accepted and kept as written.
    @Test("A hexadecimal id is an integer literal too")
    func hexadecimalId() {
        assertPathbaseExpansion(
            """
            @Property(id: 0x10)
            var flags: Int
            """,
            expandedSource: """
                var flags: Int {
                    get {
                        _$get(0x10)
                    }
                    set {
                        _$set(newValue, 0x10)
                    }
                }
                """
        )
    }
}
