import Foundation
import Pathbase

/// The `Codable` types this process has stored or read, by name, so that records of
/// encoded values can be decoded as their own type.
///
/// Shared by every ``SQLiteDatabase`` of the process; a type is added on its first use.
final class ValueTypeNames: Sendable {

    static let shared = ValueTypeNames()

    private let types = Locked<[String: any DatabaseValue.Type]>([:])

    func register(_ type: any DatabaseValue.Type, name: String) {
        types.withLock { $0[name] = type }
    }

    func type(named name: String) -> (any DatabaseValue.Type)? {
        types.withLock { $0[name] }
    }
}
