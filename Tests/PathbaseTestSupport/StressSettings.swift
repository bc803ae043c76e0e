import Foundation

/// Counts and seeds of the randomized and stress tests, read from environment variables.
///
/// ```swift
/// let rounds = try StressSettings.count("PATHBASE_KILL_ROUNDS", default: 10)
/// let seed = try StressSettings.seed("PATHBASE_KILL_SEED")
/// ```
///
/// The defaults keep `swift test` fast; `scripts/reliability` raises the counts. A seed comes
/// from its variable when set (to replay a failure) and is random otherwise; tests print it.
public enum StressSettings {

    /// The count in the environment variable `name`, or `defaultValue` when it is not set.
    public static func count(_ name: String, default defaultValue: Int) throws(StressSettingsError) -> Int {
        guard let text = ProcessInfo.processInfo.environment[name] else { return defaultValue }
        guard let value = Int(text), value > 0 else { throw .invalid(name: name, value: text) }
        return value
    }

    /// The seed in the environment variable `name` (decimal, or hexadecimal with `0x`), or
    /// `defaultValue` when it is not set — a new random seed when that is `nil`.
    public static func seed(_ name: String, default defaultValue: UInt64? = nil) throws(StressSettingsError) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment[name] else { return defaultValue ?? UInt64.random(in: .min ... .max) }
        let value = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value else { throw .invalid(name: name, value: text) }
        return value
    }

    /// A seed as the tests print it, ready to paste into its environment variable.
    public static func describe(_ seed: UInt64) -> String {
        "0x" + String(seed, radix: 16)
    }
}

/// An environment variable of ``StressSettings`` that does not hold a valid value.
public enum StressSettingsError: Error, LocalizedError, Equatable {
    /// The variable `name` holds `value`, which is not a positive count or a seed.
    case invalid(name: String, value: String)

    public var errorDescription: String? {
        switch self {
        case .invalid(let name, let value): "\(name)=\(value) is not a positive whole number"
        }
    }
}
