import Pathbase
import Testing

/// `Range: bytes=…` headers as asset downloads read them (the sync server's and Studio's).
@Suite("ByteRange: one range of a Range header")
struct ByteRangeTests {

    @Test("the three forms parse; several ranges, other units, bad numbers and reversed bounds do not")
    func parsing() {
        #expect(ByteRange(header: "bytes=10-19") == .from(10, through: 19))
        #expect(ByteRange(header: "bytes=10-") == .from(10, through: nil))
        #expect(ByteRange(header: "bytes=-5") == .suffix(5))
        #expect(ByteRange(header: "bytes= 3 - 4") == .from(3, through: 4))
        for header in ["bytes=0-1,5-6", "items=0-5", "bytes=9-3", "bytes=-0", "bytes=-", "bytes=a-b", "bytes=0-99999999999999999999", "bytes=-1-5", "0-5", ""] {
            #expect(ByteRange(header: header) == nil, "\(header)")
        }
    }

    @Test("the bytes selected in content of a size: an end past it cut, a start past it none")
    func bytesInContent() {
        #expect(ByteRange.from(10, through: 19).bytes(in: 100) == 10 ... 19)
        #expect(ByteRange.from(90, through: 200).bytes(in: 100) == 90 ... 99)
        #expect(ByteRange.from(90, through: nil).bytes(in: 100) == 90 ... 99)
        #expect(ByteRange.from(99, through: 99).bytes(in: 100) == 99 ... 99)
        #expect(ByteRange.suffix(5).bytes(in: 100) == 95 ... 99)
        #expect(ByteRange.suffix(500).bytes(in: 100) == 0 ... 99)
        #expect(ByteRange.from(100, through: nil).bytes(in: 100) == nil)
        #expect(ByteRange.from(0, through: 0).bytes(in: 0) == nil)
        #expect(ByteRange.suffix(1).bytes(in: 0) == nil)
        #expect(ByteRange.from(Int64.max, through: Int64.max).bytes(in: Int64.max) == nil)
    }
}
