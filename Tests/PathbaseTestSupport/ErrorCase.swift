/// The name of the enum case an error is, without its associated values: "unexpectedMessage"
/// for `SyncError.unexpectedMessage(kind: "modelUpdate", expected: "a response")`.
///
/// Tests check the case a function promises with it where the case carries text they should
/// not repeat: `#expect(errorCase(of: error) == "unexpectedMessage")`. `nil` for no error, and
/// for a case without associated values (compare such an error itself: they are Equatable).
public func errorCase(of error: (any Error)?) -> String? {
    guard let error else { return nil }
    let mirror = Mirror(reflecting: error)
    guard mirror.displayStyle == .enum else { return nil }
    return mirror.children.first?.label
}
