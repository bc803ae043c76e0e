import Foundation

/// Chunks made as they are asked for, so that the source holds none of the content: what the
/// large-asset tests store.
///
/// ```swift
/// let asset = try await database.storeAsset(chunks: GeneratedChunks(count: 256, size: 1 << 20))
/// ```
public struct GeneratedChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    /// How many chunks.
    public let count: Int

    /// The bytes of each chunk.
    public let size: Int

    /// `count` chunks of `size` bytes.
    public init(count: Int, size: Int) {
        self.count = count
        self.size = size
    }

    /// The byte every position of chunk `index` holds.
    public static func byte(at index: Int) -> UInt8 { UInt8(index % 251) }

    public func makeAsyncIterator() -> Iterator { Iterator(count: count, size: size) }

    /// Makes the next chunk when asked.
    public struct Iterator: AsyncIteratorProtocol {
        let count: Int
        let size: Int
        var index = 0

        public mutating func next() async -> Data? {
            guard index < count else { return nil }
            defer { index += 1 }
            return Data(repeating: GeneratedChunks.byte(at: index), count: size)
        }
    }
}
