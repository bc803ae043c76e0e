import Foundation

/// Commands through the server: a replica sends a `@Command` call for an instance another
/// replica owns; the owner runs it when it next connects and answers; the sender fetches
/// the answer.
///
/// ```swift
/// let ticket = try await phone.send(package.installCommand(version: "2.0"))
/// // on the machine that owns the package (AutomaticSync does this on every sync):
/// try await server.runReceivedCommands()
/// // back on the phone:
/// if try await phone.result(of: ticket) == true { print("installed") }
/// ```
///
/// The owner of an instance is the replica whose write created it (its first status
/// record). Commands wait on the server until the owner asks; each is answered once.
extension Replica {

    /// The replica that created an instance, as far as this replica's records tell, or
    /// `nil` if it has no record of the instance.
    public func owner(of model: ModelKey, instance: InstanceKey) -> UInt32? {
        history.records(at: .status(model: model, instance: instance)).min { $0.timestamp < $1.timestamp }?.timestamp.replica
    }

    /// Leaves a command on the server for the replica that owns its instance (or for
    /// `target`), and returns the ticket to ask for its answer with.
    ///
    /// Throws ``ReplicaError/unknownOwner(model:instance:)`` when no target is given and
    /// the instance is unknown here, ``ReplicaError/commandRelayUnsupported(transport:)``
    /// when the transport cannot relay, and what the transport throws.
    public func send(_ command: InstanceCommand, to target: UInt32? = nil) async throws -> CommandTicket {
        let relay = try relayTransport()
        guard let target = target ?? owner(of: command.model, instance: command.instance) else {
            throw ReplicaError.unknownOwner(model: command.model, instance: command.instance)
        }
        let message = try command.encoded(using: JSONEncoder())
        return try await relay.relay(CommandRelayRequest(sender: id, target: target, message: message))
    }

    /// Whether a sent command ran: `true` once its target ran it, `nil` while it has not
    /// answered; throws the ``SyncError`` the target reported (an unknown or deleted
    /// instance, arguments that do not decode, a command that threw).
    public func result(of ticket: CommandTicket) async throws -> Bool? {
        guard let response = try await relayTransport().result(of: ticket).response else { return nil }
        let consumer = UpdateConsumer(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: { _ in nil })
        try consumer.decode(commandResponse: response)
        return true
    }

    /// Runs the commands other replicas sent to this one, oldest first, and sends back
    /// each answer (done, or the error that stopped it); returns how many it answered.
    ///
    /// `modelMap` names the model types the commands are for; ``ModelRegistry/shared``
    /// when `nil`. Run ``sync()`` first so the instances are current, and again after, so
    /// the changes the commands made reach the others. A command whose answer did not
    /// reach the server (the connection broke after it ran) runs again on the next call:
    /// delivery is at least once, so make commands safe to repeat where it matters.
    @discardableResult
    public func runReceivedCommands(limit: Int = 100, modelMap: ((ModelKey) -> (any ModelProtocol.Type)?)? = nil) async throws -> Int {
        let relay = try relayTransport()
        let processor = RequestProcessor(
            database: database, encoder: JSONEncoder(), decoder: JSONDecoder(),
            modelMap: modelMap ?? { ModelRegistry.shared.type(for: $0) })
        var answered = 0
        while true {
            let inbox = try await relay.inbox(CommandInboxRequest(replicas: [id] + writers.sorted().filter { $0 != id }, limit: limit))
            for command in inbox.commands {
                // A command that cannot run is answered with its error; only commands run.
                let response: Data
                do {
                    response = try processor.process(command: command.message)
                } catch {
                    response = processor.errorResponse(error)
                }
                _ = try await relay.answer(CommandAnswer(id: command.id, replica: command.target, response: response))
                answered += 1
            }
            if inbox.commands.count < limit { return answered }
        }
    }

    /// Whether this replica's transport relays commands.
    var relaysCommands: Bool { transport is any CommandRelayTransport }

    private func relayTransport() throws(ReplicaError) -> any CommandRelayTransport {
        guard let relay = transport as? any CommandRelayTransport else {
            throw .commandRelayUnsupported(transport: String(describing: type(of: transport)))
        }
        return relay
    }
}
