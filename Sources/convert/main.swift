#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLI

StandardStreams.reserve()
exit(InferredSubcommand.main())
