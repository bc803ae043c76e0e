import Foundation

/// The ``MergeableValue`` types a process knows by name, so that a pulled or imported record
/// — whose value travels as an ``EncodedValue`` named after its type — is merged as its own
/// type when applied.
///
/// ```swift
/// MergeableTypes.register(MaximumValue<Priority>.self) // before the first sync
/// ```
///
/// ``CounterValue``, the ``MaximumValue`` and ``MinimumValue`` of every comparable type
/// that databases store natively (`Int`, `Double`, `String`, `Date`, …) and the
/// ``UnionValue`` of those, `Bool`, `Data` and `UUID` (reference lists included) are known
/// from the start. A state of your own type becomes known with the first write of a property holding
/// it in the process; register it at launch if a replica may pull before it writes.
public enum MergeableTypes {

    private struct Known {
        var byName: [String: any MergeableValue.Type]
        var identifiers: Set<ObjectIdentifier>
    }

    private static let known: Locked<Known> = {
        let types = builtIn()
        return Locked(Known(byName: Dictionary(types.map { (String(reflecting: $0), $0) }, uniquingKeysWith: { first, _ in first }), identifiers: Set(types.map { ObjectIdentifier($0) })))
    }()

    /// Makes a state type known by its name, `String(reflecting: type)`.
    public static func register(_ type: any MergeableValue.Type) {
        let identifier = ObjectIdentifier(type)
        guard !known.withLock({ $0.identifiers.contains(identifier) }) else { return }
        let name = String(reflecting: type)
        known.withLock { known in
            known.identifiers.insert(identifier)
            if known.byName[name] == nil { known.byName[name] = type }
        }
    }

    /// The type of a state with this name, if known.
    static func type(named name: String) -> (any MergeableValue.Type)? {
        known.withLock { $0.byName[name] }
    }

    /// A value as a mergeable state: itself, or an encoded state of a known type decoded;
    /// `nil` for any other value.
    static func mergeable(_ value: any DatabaseValue) -> (any MergeableValue)? {
        if let encoded = value as? EncodedValue {
            guard let type = type(named: encoded.typeName) else { return nil }
            return decode(encoded, as: type)
        }
        return value as? any MergeableValue
    }

    private static func decode<State: MergeableValue>(_ encoded: EncodedValue, as type: State.Type) -> (any MergeableValue)? {
        try? encoded.decode(as: State.self)
    }

    private static func builtIn() -> [any MergeableValue.Type] {
        var types: [any MergeableValue.Type] = [CounterValue.self]
        func ordered<Value: Codable & Comparable>(_ value: Value.Type) {
            types.append(MaximumValue<Value>.self)
            types.append(MinimumValue<Value>.self)
        }
        func both<Value: Codable & Comparable & Hashable>(_ value: Value.Type) {
            ordered(value)
            types.append(UnionValue<Value>.self)
        }
        both(Int.self)
        both(Int8.self)
        both(Int16.self)
        both(Int32.self)
        both(Int64.self)
        both(UInt.self)
        both(UInt8.self)
        both(UInt16.self)
        both(UInt32.self)
        both(UInt64.self)
        both(Double.self)
        both(Float.self)
        both(String.self)
        both(Date.self)
        types.append(UnionValue<Bool>.self)
        types.append(UnionValue<Data>.self)
        types.append(UnionValue<UUID>.self)
        return types
    }
}
