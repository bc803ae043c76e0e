import Foundation
import Pathbase

// Model ids 3700–3719: code as StateModel users write it, compiled against Pathbase.

@Model(id: 3700)
final class Ticket {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var estimate: Int

    @Reference(id: 3)
    var assignee: Assignee?

    @ReferenceList(id: 4)
    var watchers: [Assignee]
}

@Model(id: 3701)
final class Assignee {
    @Property(id: 1)
    var name: String
}

/// The model map of the StateModel compatibility tests.
func ticketModelMap(_ model: ModelKey) -> (any ModelProtocol.Type)? {
    switch model {
    case Ticket.modelId: return Ticket.self
    case Assignee.modelId: return Assignee.self
    default: return nil
    }
}
