// Declaration-only stand-ins for the few CoreVideo types that Xcode-generated
// Core ML classes use. Compiled into the `CoreML` test module together with
// CoreML.swift and CoreGraphics.swift (on Apple platforms `import CoreML`
// brings these types along). Nothing here is meant to run.
//
// Each declaration cites the Apple documentation page it was read from and the
// availability that page lists (iOS, macOS, tvOS, watchOS, visionOS).

// MARK: - OSType

/// Apple page for OSType / FourCharCode: not found in the stored docs; from the
/// MacTypes.h header as observed (`typedef UInt32 FourCharCode; typedef FourCharCode OSType;`).
/// swift-corelibs-foundation on Linux does not declare OSType, so it is declared here.
public typealias FourCharCode = UInt32

/// Not found in the stored docs; from the MacTypes.h header as observed (see FourCharCode).
public typealias OSType = FourCharCode

// MARK: - CVBuffer / CVImageBuffer / CVPixelBuffer

/// https://developer.apple.com/documentation/corevideo/cvbuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
/// Documented as `class CVBuffer` (a Core Foundation type; conforms to Equatable, Hashable).
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public final class CVBuffer: Hashable {
    public static func == (lhs: CVBuffer, rhs: CVBuffer) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

/// https://developer.apple.com/documentation/corevideo/cvimagebuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
/// `typealias CVImageBuffer = CVBuffer`
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public typealias CVImageBuffer = CVBuffer

/// https://developer.apple.com/documentation/corevideo/cvpixelbuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
/// `typealias CVPixelBuffer = CVImageBuffer`
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public typealias CVPixelBuffer = CVImageBuffer

// MARK: - Pixel format types
//
// The pages of these three constants were not found in the stored docs. The
// form `var kCVPixelFormatType_…: OSType { get }` and the availability are
// those of the sibling page
// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_twocomponent8
// (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0), which belongs to
// the same anonymous enum in CVPixelBuffer.h. Values (FourCC codes) as observed
// in the header; they are only recorded in comments because nothing runs.

/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32argb (not found in the stored docs; from the CVPixelBuffer.h header as observed; value 0x00000020) (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0 as for its sibling)
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public var kCVPixelFormatType_32ARGB: OSType { fatalError() }

/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32bgra (not found in the stored docs; from the CVPixelBuffer.h header as observed; value 'BGRA' = 0x42475241) (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0 as for its sibling)
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public var kCVPixelFormatType_32BGRA: OSType { fatalError() }

/// https://developer.apple.com/documentation/corevideo/kcvpixelformattype_onecomponent8 (not found in the stored docs; from the CVPixelBuffer.h header as observed; value 'L008' = 0x4C303038) (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0 as for its sibling)
@available(macOS 10.4, iOS 4.0, tvOS 9.0, watchOS 4.0, visionOS 1.0, *)
public var kCVPixelFormatType_OneComponent8: OSType { fatalError() }
