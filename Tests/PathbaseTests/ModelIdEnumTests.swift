import Pathbase
import Testing

// Model ids 600–649.

/// Model ids collected in one enum, as recommended in the documentation's tips.
enum ModelId: ModelKey {
    case item = 600
    case message = 601
    case reminder = 602
}

@Model(id: ModelId.item.rawValue)
class Item {
    @Property(id: 1) var name: String
}

@Model(id: ModelId.message.rawValue)
final class Message {
    @Property(id: 1) var body: String
    @Reference(id: 2) var about: Item?
}

@Suite("Model ids from an enum")
struct ModelIdEnumTests {

    @Test("@Model accepts an enum raw value as id")
    func idsFromEnum() {
        #expect(Item.modelId == ModelId.item.rawValue)
        #expect(Message.modelId == 601)
    }

    @Test("Models with enum ids store and list their instances", arguments: DatabaseKind.allCases)
    func usage(kind: DatabaseKind) {
        let database = kind.make()
        let item = Item.create(in: database, id: 1, name: "Milk")
        let message = Message.create(in: database, id: 1, body: "Buy", about: item)
        #expect(message.about?.name == "Milk")
        let path = item.path(of: .name)
        #expect(path.model == ModelId.item.rawValue)
        #expect(database.all(of: Item.self).map(\.id) == [1])
        #expect(database.all(of: Message.self).map(\.id) == [1])
    }

    @Test("An enum id maps back to its model type, as a model map would")
    func modelMap() {
        func modelType(for id: ModelKey) -> (any ModelProtocol.Type)? {
            switch ModelId(rawValue: id) {
            case .item: return Item.self
            case .message: return Message.self
            case .reminder, nil: return nil
            }
        }
        #expect(modelType(for: 600) == Item.self)
        #expect(modelType(for: 601) == Message.self)
        #expect(modelType(for: 602) == nil)
        #expect(modelType(for: 1) == nil)
    }
}
