import Foundation

// The messages of the command relay: a replica sends a `@Command` call for an instance
// another replica owns to the server, which keeps it until the owner asks for its
// commands, runs them and sends back each answer, which the sender then fetches. The
// command and its answer travel as the seed's encoded messages (`message`, `response`),
// which the server stores without reading.

/// A command one replica sends to another through the server.
///
/// ```swift
/// let ticket = try await replica.send(package.installCommand(version: "2.0"))
/// ```
public struct CommandRelayRequest: Codable, Hashable, Sendable {

    /// The sending replica.
    public var sender: UInt32

    /// The replica that should run the command.
    public var target: UInt32

    /// The command, as ``InstanceCommand/encoded(using:)`` writes it with a `JSONEncoder`.
    public var message: Data

    /// A request to relay `message` from `sender` to `target`.
    public init(sender: UInt32, target: UInt32, message: Data) {
        self.sender = sender
        self.target = target
        self.message = message
    }
}

/// The server's number for a relayed command, to ask for its answer with.
///
/// ```swift
/// if let ran = try await replica.result(of: ticket) { print(ran) }
/// ```
public struct CommandTicket: Codable, Hashable, Sendable, CustomStringConvertible {

    /// The command's number on the server, unique within the account.
    public var id: Int64

    /// A ticket for a command number.
    public init(id: Int64) { self.id = id }

    public var description: String { "command \(id)" }
}

/// A relayed command waiting for its target replica.
public struct RelayedCommand: Codable, Hashable, Sendable {

    /// The server's number for it.
    public var id: Int64

    /// The replica that sent it.
    public var sender: UInt32

    /// The replica it is for.
    public var target: UInt32

    /// The encoded command.
    public var message: Data

    /// A relayed command.
    public init(id: Int64, sender: UInt32, target: UInt32, message: Data) {
        self.id = id
        self.sender = sender
        self.target = target
        self.message = message
    }
}

/// A replica asking for the commands sent to it that it has not answered yet.
public struct CommandInboxRequest: Codable, Hashable, Sendable {

    /// The ids the replica is known by: its replica id and the clock ids it wrote with
    /// (an instance's owner is named by the clock id of the write that created it).
    public var replicas: [UInt32]

    /// The most commands to return.
    public var limit: Int

    /// A request for at most `limit` waiting commands of `replicas`.
    public init(replicas: [UInt32], limit: Int) {
        self.replicas = replicas
        self.limit = limit
    }
}

/// The commands waiting for a replica, oldest first.
public struct CommandInboxResponse: Codable, Hashable, Sendable {

    /// The waiting commands.
    public var commands: [RelayedCommand]

    /// A response with these commands.
    public init(commands: [RelayedCommand]) { self.commands = commands }
}

/// The answer of the replica that ran (or refused) a relayed command.
public struct CommandAnswer: Codable, Hashable, Sendable {

    /// The command answered.
    public var id: Int64

    /// The answering replica: the command's target.
    public var replica: UInt32

    /// The answer as ``RequestProcessor/process(request:)`` encodes it: done, or an error.
    public var response: Data

    /// An answer of `replica` to command `id`.
    public init(id: Int64, replica: UInt32, response: Data) {
        self.id = id
        self.replica = replica
        self.response = response
    }
}

/// The answer to a relayed command, once its target sent one.
public struct CommandResultResponse: Codable, Hashable, Sendable {

    /// The encoded answer; `nil` while the target has not answered.
    public var response: Data?

    /// A result.
    public init(response: Data?) { self.response = response }
}

/// A ``SyncTransport`` that also relays commands between replicas through the server.
///
/// `HTTPSyncTransport` and `PathbaseServer`'s `InProcessTransport` conform.
public protocol CommandRelayTransport: SyncTransport {

    /// Leaves a command for its target replica on the server.
    func relay(_ request: CommandRelayRequest) async throws -> CommandTicket

    /// The commands waiting for a replica.
    func inbox(_ request: CommandInboxRequest) async throws -> CommandInboxResponse

    /// Sends the answer to a command the replica ran.
    func answer(_ answer: CommandAnswer) async throws -> CommandTicket

    /// The answer to a command sent earlier, if there is one yet.
    func result(of ticket: CommandTicket) async throws -> CommandResultResponse
}
