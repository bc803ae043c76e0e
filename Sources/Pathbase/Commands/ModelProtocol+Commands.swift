extension ModelProtocol {

    /// No commands: what a model without `@Command` functions reports.
    public func _$command(_ command: CommandKey, arguments: inout any UnkeyedDecodingContainer) throws -> (() throws -> Void)? {
        nil
    }
}
