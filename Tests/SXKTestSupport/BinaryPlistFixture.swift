/// Hand-made binary plists for the tests that feed the device-state import hostile files.
public enum BinaryPlistFixture {
    /// `bplist00` from encoded objects (marker byte first), with one-byte offsets and `refSize`-byte
    /// references; `top` is the root object's index.
    public static func bplist(_ objects: [[UInt8]], top: Int = 0, refSize: UInt8 = 1) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(out.count))
            out += object
        }
        let table = out.count
        out += offsets
        func be64(_ n: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((n >> ($0 * 8)) & 0xFF) } }
        out += [0, 0, 0, 0, 0, 0, 1, refSize] + be64(objects.count) + be64(top) + be64(table)
        return out
    }
}
