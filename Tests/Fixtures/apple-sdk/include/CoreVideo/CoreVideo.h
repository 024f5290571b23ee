/*
 * Declaration-only stand-in for the few CoreVideo declarations that
 * Xcode-generated Core ML Objective-C classes use. Nothing here can be linked
 * or run. Each declaration cites the Apple documentation page it was read
 * from and the availability listed there (iOS, macOS, tvOS, watchOS, visionOS).
 */
#ifndef APPLE_SDK_STUB_COREVIDEO_H
#define APPLE_SDK_STUB_COREVIDEO_H

#include <stdint.h>
#include <os/availability.h>

#ifdef __cplusplus
#define CV_EXPORT extern "C"
#else
#define CV_EXPORT extern
#endif

/* OSType: Apple's page was not found in the stored docs; from MacTypes.h as
 * observed (UInt32 -> FourCharCode -> OSType). */
typedef uint32_t UInt32;
typedef UInt32 FourCharCode;
typedef FourCharCode OSType;

#pragma clang assume_nonnull begin

// https://developer.apple.com/documentation/corevideo/cvbuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
// C form as in CVBuffer.h as observed: a pointer to the opaque struct __CVBuffer.
typedef struct __CVBuffer *CVBufferRef;

// https://developer.apple.com/documentation/corevideo/cvimagebuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
typedef CVBufferRef CVImageBufferRef;

// https://developer.apple.com/documentation/corevideo/cvpixelbuffer (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0)
typedef CVImageBufferRef CVPixelBufferRef;

// https://developer.apple.com/documentation/corevideo/cvpixelbufferretain (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Page: `extern CVPixelBufferRef CVPixelBufferRetain(CVPixelBufferRef texture);` (NULL is allowed -> _Nullable)
CV_EXPORT CVPixelBufferRef _Nullable CVPixelBufferRetain(CVPixelBufferRef _Nullable texture)
    API_AVAILABLE(macos(10.4), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/corevideo/cvpixelbufferrelease (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Page: `extern void CVPixelBufferRelease(CVPixelBufferRef texture);` (NULL is allowed -> _Nullable)
CV_EXPORT void CVPixelBufferRelease(CVPixelBufferRef _Nullable texture)
    API_AVAILABLE(macos(10.4), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

#pragma clang assume_nonnull end

/* Pixel format types: an anonymous enum of OSType values, as in
 * CVPixelBuffer.h as observed (CF_ENUM(OSType) { ... }). The pages of these
 * three constants were not found in the stored docs; availability is that of
 * the sibling https://developer.apple.com/documentation/corevideo/kcvpixelformattype_twocomponent8
 * (iOS 4.0, macOS 10.4, tvOS 9.0, watchOS 4.0, visionOS 1.0). Values are the
 * FourCC codes, written in hex to avoid multi-character constants. */
enum : OSType {
    // https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32argb (not found in the stored docs) — 32-bit ARGB, value 0x00000020
    kCVPixelFormatType_32ARGB = 0x00000020,
    // https://developer.apple.com/documentation/corevideo/kcvpixelformattype_32bgra (not found in the stored docs) — 'BGRA'
    kCVPixelFormatType_32BGRA = 0x42475241,
    // https://developer.apple.com/documentation/corevideo/kcvpixelformattype_onecomponent8 (not found in the stored docs) — 'L008'
    kCVPixelFormatType_OneComponent8 = 0x4C303038,
};

#endif /* APPLE_SDK_STUB_COREVIDEO_H */
