import Foundation

/// Standard error, where the default error handlers of non-throwing calls report.
///
/// ```swift
/// StandardError.write("Pathbase EditingContext: the commit failed: \(error)")
/// ```
///
/// One line per call; writes from several threads don't interleave within a line.
package enum StandardError {

    /// Writes `line` and a newline to standard error.
    package static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
