import PostgresNIO

extension PostgresRowSequence {

    /// The rows' single column, decoded, read to the end of the result.
    ///
    /// ```swift
    /// let ids = try await client.query("SELECT id FROM accounts").values(Int64.self)
    /// ```
    func values<Value: PostgresDecodable & Sendable>(_ type: Value.Type) async throws -> [Value] {
        var values: [Value] = []
        for try await value in decode(Value.self) {
            values.append(value)
        }
        return values
    }
}
