import ArgumentParser
import Foundation

/// A failure of a command, in one line a user understands.
struct CommandFailure: Error, LocalizedError {

    let message: String

    init(_ message: String) {
        self.message = message
    }

    var errorDescription: String? { message }

    /// The one-line message for any error a command throws: the error's own sentence for
    /// Pathbase's errors and other `LocalizedError`s, the file and the reason for
    /// Foundation's file errors (never their `NSCocoaErrorDomain` dump).
    static func readableMessage(of error: any Error) -> String {
        let message: String
        switch error {
        case let validation as ValidationError:
            message = validation.message
        case let cocoa as CocoaError:
            message = describe(cocoa)
        case let localized as LocalizedError:
            message = localized.errorDescription ?? "\(error)"
        default:
            message = "\(error)"
        }
        // One line, whatever the error carried.
        return message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func describe(_ error: CocoaError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? error.url?.path ?? "the file"
        switch error.code {
        case .fileReadNoSuchFile, .fileNoSuchFile: return "\(path): no such file"
        case .fileReadNoPermission, .fileWriteNoPermission: return "\(path): permission denied"
        case .fileWriteOutOfSpace: return "\(path): the disk is full"
        case .fileReadCorruptFile: return "\(path): the file can't be read"
        default: return "\(path): \(error.code) (Foundation error \(error.code.rawValue))"
        }
    }
}

/// Writes the CLI's messages to standard error, one line each.
enum StandardErrorLine {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
