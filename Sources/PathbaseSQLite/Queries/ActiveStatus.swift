import Pathbase

/// What makes an instance active: its status (the value of property 0) is stored as a status
/// and is `created`. One definition for the queries' SQL, the in-memory sets of
/// ``ActiveInstances`` and the matches a listing keeps (``ListingColumns``), which must agree.
enum ActiveStatus {

    /// The condition on an instance body (`body` names its column).
    static func sql(body: String) -> String {
        let status = Schema.valueExpressions(property: PropertyKey.instanceId, body: body)
        return "\(status.type) = \(ValueTag.status.rawValue) AND \(status.value) = \(InstanceStatus.created.rawValue)"
    }

    /// The same test on a row's type tag and its value when that is an integer (`nil` when
    /// it is not).
    @inline(__always)
    static func holds(tag: Int64, integer: Int64?) -> Bool {
        tag == ValueTag.status.rawValue && integer == Int64(InstanceStatus.created.rawValue)
    }
}
