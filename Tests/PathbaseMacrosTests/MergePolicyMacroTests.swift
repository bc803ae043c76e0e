import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Property(id:merge:)`: the accessors of each policy, and what the macro refuses.
@Suite("Merge policy macros")
struct MergePolicyMacroTests {

    @Test("merge: .counter reads and writes through the counter accessors, with the initial value; an in-place change lands as a difference")
    func counter() {
        assertPathbaseExpansion(
            """
            @Property(id: 1, merge: .counter)
            var likes: Int = 10
            """,
            expandedSource: """
                var likes: Int {
                    get {
                        _$getCounter(1, default: 10)
                    }
                    set {
                        _$setCounter(newValue, 1, default: 10)
                    }
                    _modify {
                        var value: Int = _$getCounter(1, default: 10)
                        let old = value
                        yield &value
                        _$modifyCounter(from: old, to: value, 1)
                    }
                    init(initialValue) {
                    }
                }
                """
        )
    }

    @Test("merge: .union on a Set and on a reference list: an in-place change lands as the elements added and removed")
    func union() {
        assertPathbaseExpansion(
            """
            @Property(id: 4, merge: .union)
            var tags: Set<String>
            """,
            expandedSource: """
                var tags: Set<String> {
                    get {
                        _$getUnion(4)
                    }
                    set {
                        _$setUnion(newValue, 4)
                    }
                    _modify {
                        var value: Set<String> = _$getUnion(4)
                        let old = value
                        yield &value
                        _$modifyUnion(from: old, to: value, 4)
                    }
                }
                """
        )
        assertPathbaseExpansion(
            """
            @ReferenceList(id: 5, merge: .union)
            var members: [Person]
            """,
            expandedSource: """
                var members: [Person] {
                    get {
                        _$referenceListUnion(5)
                    }
                    set {
                        _$setReferenceListUnion(newValue, 5)
                    }
                    _modify {
                        var value: [Person] = _$referenceListUnion(5)
                        let old = value
                        yield &value
                        _$modifyReferenceListUnion(from: old, to: value, 5)
                    }
                }
                """
        )
    }

    @Test("merge: .max and .min read the natural default without an initial value; MergePolicy.max is the same")
    func maximumAndMinimum() {
        assertPathbaseExpansion(
            """
            @Property(id: 2, merge: MergePolicy.max)
            var highestBid: Int
            """,
            expandedSource: """
                var highestBid: Int {
                    get {
                        _$getMaximum(2, default: Pathbase._$defaultValue())
                    }
                    set {
                        _$setMaximum(newValue, 2)
                    }
                }
                """
        )
        assertPathbaseExpansion(
            """
            @Property(id: 3, merge: .min)
            var lowestPrice: Int = .max
            """,
            expandedSource: """
                var lowestPrice: Int {
                    get {
                        _$getMinimum(3, default: .max)
                    }
                    set {
                        _$setMinimum(newValue, 3)
                    }
                    init(initialValue) {
                    }
                }
                """
        )
    }

    @Test("merge: .newestWins expands exactly like no policy")
    func newestWins() {
        assertPathbaseExpansion(
            """
            @Property(id: 4, merge: .newestWins)
            var title: String
            """,
            expandedSource: """
                var title: String {
                    get {
                        _$get(4)
                    }
                    set {
                        _$set(newValue, 4)
                    }
                }
                """
        )
    }

    @Test("an unknown policy and a counter that is not an Int are refused")
    func refused() {
        assertPathbaseExpansion(
            """
            @Property(id: 1, merge: .sum)
            var likes: Int
            """,
            expandedSource: """
                var likes: Int
                """,
            diagnostics: [
                DiagnosticSpec(message: "'.sum' is not a merge policy; use .newestWins, .max, .min, .counter or .union", line: 1, column: 25)
            ]
        )
        assertPathbaseExpansion(
            """
            @Property(id: 1, merge: .counter)
            var likes: Double
            """,
            expandedSource: """
                var likes: Double
                """,
            diagnostics: [
                DiagnosticSpec(message: "merge: .counter requires 'Int', not 'Double': a counter adds up the changes of every replica", line: 1, column: 25)
            ]
        )
    }
}
