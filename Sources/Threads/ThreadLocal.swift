#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value of each thread's own: made at its first use on that thread, kept
/// for the thread's later uses, released when the thread ends.
public final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    private var key = pthread_key_t()
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(UnsafeMutableRawPointer(mutating: pointer)).release()
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
    }

    /// This thread's value.
    public var value: Value {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(existing).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
