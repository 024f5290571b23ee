/*
 * Declaration-only stand-in for the one CoreGraphics type that
 * Xcode-generated Core ML Objective-C classes use.
 */
#ifndef APPLE_SDK_STUB_COREGRAPHICS_H
#define APPLE_SDK_STUB_COREGRAPHICS_H

// https://developer.apple.com/documentation/coregraphics/cgimage (the page lists no platform versions)
// C form as in CGImage.h as observed: a pointer to the opaque struct CGImage.
typedef struct CGImage *CGImageRef;

#endif /* APPLE_SDK_STUB_COREGRAPHICS_H */
