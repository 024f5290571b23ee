#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Advice to the kernel about memory that holds data no longer needed
/// there, over the whole pages inside a range only (the partial pages at
/// its ends may hold neighbouring data).
public enum MemoryPages {
    /// Asks the kernel to take the pages back now. Contents never change: a
    /// page read again comes back from its file (or from swap). Safe on any
    /// memory; MADV_PAGEOUT is Linux 5.4's, elsewhere (and on older
    /// kernels, which refuse it) nothing happens.
    public static func pageOut(_ bytes: UnsafeRawBufferPointer) {
        #if os(Linux)
        advise(bytes, 21)  // MADV_PAGEOUT
        #endif
    }

    /// Gives the pages back for good: a read-only file mapping reads them
    /// from the file again, but ordinary memory reads as zeros afterwards.
    /// Only for memory nothing reads again, or for file mappings.
    public static func discard(_ bytes: UnsafeRawBufferPointer) {
        advise(bytes, MADV_DONTNEED)
    }

    private static func advise(_ bytes: UnsafeRawBufferPointer, _ advice: Int32) {
        guard let base = bytes.baseAddress else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let first = (UInt(bitPattern: base) + page - 1) / page * page
        let end = UInt(bitPattern: base + bytes.count) / page * page
        guard end > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, Int(end - first), advice)
    }
}
