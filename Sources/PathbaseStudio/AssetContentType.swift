import Foundation

/// The media type of an asset's content, guessed from its first bytes: assets record only a
/// hash and a size, and Studio previews images, audio and video by type.
///
/// ```swift
/// AssetContentType.of(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))  // "image/png"
/// ```
///
/// Anything not recognized is `application/octet-stream`, which pages offer as a download.
enum AssetContentType {

    /// How many leading bytes the guess reads.
    static let prefixLength = 16

    /// The type of the file at `url`, from its first bytes.
    static func of(fileAt url: URL) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return unknown }
        defer { try? handle.close() }
        return of((try? handle.read(upToCount: prefixLength)) ?? Data())
    }

    /// The type of content starting with `prefix`.
    static func of(_ prefix: Data) -> String {
        let bytes = [UInt8](prefix.prefix(prefixLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset ..< offset + signature.count]) == signature
        }
        let ascii = { (text: String) in [UInt8](text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return "image/gif" }
        if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) { return "image/webp" }
        if starts(ascii("RIFF")) && starts(ascii("WAVE"), at: 8) { return "audio/wav" }
        if starts(ascii("ID3")) || starts([0xFF, 0xFB]) || starts([0xFF, 0xF3]) || starts([0xFF, 0xF2]) { return "audio/mpeg" }
        if starts(ascii("OggS")) { return "audio/ogg" }
        if starts(ascii("fLaC")) { return "audio/flac" }
        if starts(ascii("ftyp"), at: 4) {
            // ISO media: M4A is audio, the other brands (isom, mp42, qt…) video.
            return starts(ascii("M4A "), at: 8) ? "audio/mp4" : starts(ascii("qt  "), at: 8) ? "video/quicktime" : "video/mp4"
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "video/webm" }
        if starts(ascii("%PDF-")) { return "application/pdf" }
        return unknown
    }

    static let unknown = "application/octet-stream"

    /// What a page shows for content of `type`.
    enum Preview: Equatable {
        case image, audio, video, download
    }

    static func preview(of type: String) -> Preview {
        if type.hasPrefix("image/") { return .image }
        if type.hasPrefix("audio/") { return .audio }
        if type.hasPrefix("video/") { return .video }
        return .download
    }
}
