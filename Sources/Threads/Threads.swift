#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The number of cores online, read once.
public enum ProcessorCount {
    public static let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}

/// A mutual-exclusion lock around a pthread mutex. The mutex is allocated:
/// it must not move, and a stored property's address is not stable in Swift.
public final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    public func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
