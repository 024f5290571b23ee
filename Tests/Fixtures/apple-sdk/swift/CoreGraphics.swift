// Declaration-only stand-in for the one CoreGraphics type that Xcode-generated
// Core ML classes use. Compiled into the `CoreML` test module together with
// CoreML.swift and CoreVideo.swift. Nothing here is meant to run.

/// https://developer.apple.com/documentation/coregraphics/cgimage (the page lists no platform versions)
/// Documented as `class CGImage` (a Core Foundation type, `CGImageRef` in C).
/// No @available attribute: the page gives none.
public final class CGImage {}
