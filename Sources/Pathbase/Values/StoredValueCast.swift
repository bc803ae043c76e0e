/// Reads a stored value as another type than the one it was stored with: a plain cast,
/// or decoding for an ``EncodedValue``. Off the hot path: the databases call it only when
/// the requested type differs from the stored one.
@inline(never)
func castStoredValue<Value: DatabaseValue>(_ stored: any DatabaseValue, as type: Value.Type) -> Value? {
    if let value = stored as? Value { return value }
    if let encoded = stored as? EncodedValue, Value.self != EncodedValue.self {
        // JSON that doesn't decode as `Value` means the value is not a `Value`: `nil`, as
        // `get` documents; the stored value itself stays as it is.
        return try? encoded.decode(as: Value.self)
    }
    return nil
}
