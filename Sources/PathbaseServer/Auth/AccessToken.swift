import Crypto
import Foundation

/// Bearer tokens of sync server accounts: made at random, shown once, stored only as a hash.
///
/// ```swift
/// let token = AccessToken.make()              // give this to the account's owner
/// let stored = AccessToken.hash(token)        // keep only this
/// assert(AccessToken.hash(token) == stored)   // how a request's token is checked
/// ```
///
/// A token is 32 random bytes (256 bits) in unpadded base64url, so a plain SHA-256 is
/// enough to make a leaked store useless to an attacker: nothing about a random 256-bit
/// value can be guessed from its hash, and no salt or slow hash is needed as it would be
/// for a password.
public enum AccessToken {

    /// A new random token.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0 ..< 32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The SHA-256 of a token's UTF-8 bytes: what a store keeps.
    public static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
