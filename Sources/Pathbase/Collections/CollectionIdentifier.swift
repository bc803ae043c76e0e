import Foundation

/// An id type a collection's structs can have: it names the instance key the struct is
/// stored under, the same on every replica.
///
/// ```swift
/// struct Note: Codable, Identifiable { var id: UUID; var text: String }
/// struct Tag: Codable, Identifiable { var id: String; var label: String }
/// struct Order: Codable, Identifiable { var id: Int; var total: Double }
/// ```
///
/// Integers are their own instance key. `UUID`s and `String`s are hashed to 63 bits; the id
/// itself is stored alongside, so two ids with one hash are reported as
/// ``CollectionError/idCollision(collection:id:storedId:)`` instead of overwriting each other.
public protocol CollectionIdentifier: DatabaseValue, Hashable, Sendable {

    /// The instance key the id is stored under.
    var collectionInstanceKey: InstanceKey { get }

    /// Whether ``collectionInstanceKey`` is the id itself (no two ids share it), so the id need not be
    /// stored to detect collisions.
    static var isExactInstanceKey: Bool { get }
}

extension UUID: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { CollectionKeys.instance(hashing: uuidString) }
    public static var isExactInstanceKey: Bool { false }
}

extension String: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { CollectionKeys.instance(hashing: self) }
    public static var isExactInstanceKey: Bool { false }
}

extension Int: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { self }
    public static var isExactInstanceKey: Bool { true }
}

extension Int64: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { InstanceKey(self) }
    public static var isExactInstanceKey: Bool { true }
}

extension Int32: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { InstanceKey(self) }
    public static var isExactInstanceKey: Bool { true }
}

extension UInt32: CollectionIdentifier {
    public var collectionInstanceKey: InstanceKey { InstanceKey(self) }
    public static var isExactInstanceKey: Bool { true }
}
