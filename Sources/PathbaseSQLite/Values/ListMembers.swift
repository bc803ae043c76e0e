import Foundation

/// The elements of a stored `[Int]` (``ValueTag/integerArray``): 64-bit little-endian
/// integers, one after the other. `list_members` holds them one per row.
enum ListMembers {

    /// The integers in a stored list; a trailing partial integer is ignored.
    static func decode(_ bytes: Data) -> [Int64] {
        bytes.withUnsafeBytes { buffer in
            (0 ..< buffer.count / 8).map { offset in
                Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset * 8, as: Int64.self))
            }
        }
    }
}
