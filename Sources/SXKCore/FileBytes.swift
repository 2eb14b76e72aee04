#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a small file whole from an open descriptor: what the state, startup and display files do.
public enum FileBytes {
    public enum Outcome: Equatable {
        case bytes([UInt8])
        /// More than `limit` bytes were there (or still coming): how many had been read.
        case tooLarge(Int)
        /// `read` failed with this errno.
        case failed(Int32)
    }

    /// Reads `fd` to its end, giving up past `limit` bytes (`limit` < `Int.max`). The buffer starts at `sizeHint` (the size
    /// `fstat` gave) plus one, so a file that did not change is read in one call and its end seen
    /// in the next; it grows only for one that did. No zero-filled chunk is made: each start reads
    /// several of these files, and a 64 KiB chunk apiece cost more than the reads.
    public static func readAll(_ fd: Int32, sizeHint: Int, limit: Int) -> Outcome {
        var capacity = min(max(sizeHint, 0), limit) + 1
        var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { storage.deallocate() }
        var count = 0
        while true {
            if count == capacity {
                // A full buffer of `limit + 1` bytes has already returned `.tooLarge` below.
                assert(count <= limit)
                capacity = min(capacity * 2, limit + 1)
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
                bigger.copyMemory(from: UnsafeRawBufferPointer(storage))
                storage.deallocate()
                storage = bigger
            }
            let n = read(fd, storage.baseAddress! + count, capacity - count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if n == 0 { break }
            count += n
            if count > limit { return .tooLarge(count) }
        }
        return .bytes(Array(UnsafeRawBufferPointer(rebasing: storage[..<count])))
    }
}
