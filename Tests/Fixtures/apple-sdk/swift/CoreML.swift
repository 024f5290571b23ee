// Declaration-only stand-ins for the Core ML API that Xcode-generated model
// classes (`MyModelInput`, `MyModelOutput`, `MyModel`) use, so that generated
// Swift can be type-checked on Linux, where there is no Core ML SDK.
//
// Built together with CoreVideo.swift and CoreGraphics.swift into one module
// named `CoreML`:
//   swiftc -emit-module -module-name CoreML -parse-as-library \
//     -emit-module-path OUT/CoreML.swiftmodule Tests/Fixtures/apple-sdk/swift/*.swift
//
// Rules followed in this file:
// - Every declaration cites the Apple documentation page it was read from,
//   with the availability that page lists (iOS, macOS, tvOS, watchOS, visionOS),
//   and carries the same availability as an @available attribute. When a page
//   lists no watchOS, the declaration is also `@available(watchOS, unavailable)`.
//   (Swift ignores @available for Apple platforms when compiling for Linux, so
//   the attributes document but do not enforce.)
// - Signatures are written as the pages show them (labels, parameter names,
//   types, optionals, default arguments, throws, async, class vs instance).
// - Where a page was not in the stored documentation, the comment says so and
//   the declaration is taken from the Objective-C header as observed.
// - Bodies are `fatalError()`: nothing here runs.
// - Apple's Core ML classes are Objective-C classes; they are declared as
//   `open class X: NSObject` (NSObject on Linux is swift-corelibs-foundation's).
//   Members imported from Objective-C are `open`; members from the Swift
//   overlay (Swift-only API) are `public` and live in extensions.

@_exported import Foundation

// MARK: - MLFeatureProvider

/// https://developer.apple.com/documentation/coreml/mlfeatureprovider (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
/// Documented as `protocol MLFeatureProvider`: it does NOT refine NSObjectProtocol
/// in Swift, which is why Xcode-generated `class XInput : MLFeatureProvider`
/// compiles without subclassing NSObject.
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
public protocol MLFeatureProvider {
    /// https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurenames (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    var featureNames: Set<String> { get }

    /// https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurevalue(for:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    func featureValue(for featureName: String) -> MLFeatureValue?
}

// MARK: - MLBatchProvider

/// https://developer.apple.com/documentation/coreml/mlbatchprovider (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
public protocol MLBatchProvider {
    /// https://developer.apple.com/documentation/coreml/mlbatchprovider/count (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    var count: Int { get }

    /// https://developer.apple.com/documentation/coreml/mlbatchprovider/features(at:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    func features(at index: Int) -> any MLFeatureProvider
}

// MARK: - MLFeatureValue

/// https://developer.apple.com/documentation/coreml/mlfeaturevalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLFeatureValue: NSObject {

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(pixelbuffer:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(pixelBuffer value: CVPixelBuffer) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(double:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(double value: Double) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(int64:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(int64 value: Int64) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(string:) (not found in the stored docs; from the Objective-C header as observed:
    /// `+ (instancetype)featureValueWithString:(NSString *)value;`; availability taken from the class page: iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(string value: String) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(multiarray:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(multiArray value: MLMultiArray) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(dictionary:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(dictionary value: [AnyHashable : NSNumber]) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(cgimage:pixelswide:pixelshigh:pixelformattype:options:)-1pdp4
    /// (not found in the stored docs — only linked from the cropAndScale page; from the Objective-C header as observed:
    /// `+ (nullable instancetype)featureValueWithCGImage:(CGImageRef)cgImage pixelsWide:(NSInteger)pixelsWide pixelsHigh:(NSInteger)pixelsHigh
    ///   pixelFormatType:(OSType)pixelFormatType options:(nullable NSDictionary<MLFeatureValueImageOption, id> *)options error:(NSError **)error`;
    /// the `options: … = nil` default and availability follow the documented sibling init(imageAt:pixelsWide:pixelsHigh:pixelFormatType:options:):
    /// iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public convenience init(cgImage: CGImage, pixelsWide: Int, pixelsHigh: Int, pixelFormatType: OSType, options: [MLFeatureValue.ImageOption : Any]? = nil) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(imageat:pixelswide:pixelshigh:pixelformattype:options:) (iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public convenience init(imageAt url: URL, pixelsWide: Int, pixelsHigh: Int, pixelFormatType: OSType, options: [MLFeatureValue.ImageOption : Any]? = nil) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imagebuffervalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var imageBufferValue: CVPixelBuffer? { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/multiarrayvalue (not found in the stored docs; from the Objective-C header as observed:
    /// `@property (readonly, nullable, nonatomic) MLMultiArray *multiArrayValue;`; availability from the class page: iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var multiArrayValue: MLMultiArray? { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/stringvalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var stringValue: String { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/int64value (not found in the stored docs; from the Objective-C header as observed:
    /// `@property (readonly, nonatomic) int64_t int64Value;`; availability from the class page: iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var int64Value: Int64 { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/doublevalue (not found in the stored docs; from the Objective-C header as observed:
    /// `@property (readonly, nonatomic) double doubleValue;`; availability from the class page: iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var doubleValue: Double { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/dictionaryvalue (not found in the stored docs; from the Objective-C header as observed:
    /// `@property (readonly, nonatomic) NSDictionary<id, NSNumber *> *dictionaryValue;`; availability from the class page: iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var dictionaryValue: [AnyHashable : NSNumber] { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    /// Documented as `struct ImageOption` (the Objective-C typedef `MLFeatureValueImageOption`).
    /// Note: the page gives iOS 11.0, not iOS 13.0; only its two keys are iOS 13.0.
    /// The page lists no conformances in the stored copy; Hashable, Equatable,
    /// RawRepresentable and Sendable are those of a Swift-imported
    /// NS_TYPED_EXTENSIBLE_ENUM string wrapper (Sendable also lets this module
    /// build in Swift 6 language mode, where `static let` of a non-Sendable type is an error).
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public struct ImageOption: Hashable, Equatable, RawRepresentable, Sendable {
        /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/init(_:) (listed on the ImageOption page; signature `init(_ rawValue: String)`)
        public init(_ rawValue: String) { fatalError() }

        /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/init(rawvalue:) (listed on the ImageOption page; signature `init(rawValue: String)`)
        public init(rawValue: String) { fatalError() }

        /// RawRepresentable requirement (the imported struct wraps an NSString).
        public var rawValue: String { fatalError() }
    }
}

@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
extension MLFeatureValue.ImageOption {
    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/croprect (own page not found in the stored docs;
    /// listed on the ImageOption page as `static let cropRect: MLFeatureValue.ImageOption`; availability as cropAndScale: iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public static let cropRect: MLFeatureValue.ImageOption = { fatalError() }()

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/cropandscale (iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public static let cropAndScale: MLFeatureValue.ImageOption = { fatalError() }()
}

@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension MLFeatureValue {
    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(shapedarray:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    @available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public convenience init<Scalar>(shapedArray: MLShapedArray<Scalar>) where Scalar : MLShapedArrayScalar { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlfeaturevalue/shapedarrayvalue(of:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    @available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public func shapedArrayValue<Scalar>(of type: Scalar.Type) -> MLShapedArray<Scalar>? where Scalar : MLShapedArrayScalar { fatalError() }
}

// MARK: - MLMultiArrayDataType

/// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
/// Documented as `enum MLMultiArrayDataType` (an NS_ENUM over NSInteger, `init?(rawValue: Int)`).
/// Raw values are not on Apple's pages; they are from the Objective-C header as observed
/// (0x10000 | bits for floating point, 0x20000 | bits for integers).
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
public enum MLMultiArrayDataType: Int, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/double (own page not found in the stored docs; listed on the enum page; availability of the enum)
    case double = 65600   // 0x10000 | 64

    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float32 (own page not found in the stored docs; listed on the enum page; availability of the enum)
    case float32 = 65568  // 0x10000 | 32

    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float16 (iOS 16.0, macOS 12.0, tvOS 16.0, watchOS 9.0, visionOS 1.0)
    @available(macOS 12.0, iOS 16.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    case float16 = 65552  // 0x10000 | 16

    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/int32 (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    case int32 = 131104   // 0x20000 | 32

    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public static var float: MLMultiArrayDataType { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float64 (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public static var float64: MLMultiArrayDataType { fatalError() }
}

// MARK: - MLMultiArray

/// https://developer.apple.com/documentation/coreml/mlmultiarray (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLMultiArray: NSObject {
    /// https://developer.apple.com/documentation/coreml/mlmultiarray/init(shape:datatype:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public init(shape: [NSNumber], dataType: MLMultiArrayDataType) throws { fatalError() }
}

@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension MLMultiArray {
    /// https://developer.apple.com/documentation/coreml/mlmultiarray/init(_:)-wk41 (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    /// Documented as generic over MLShapedArrayProtocol (not over `MLShapedArray<Scalar>`).
    @available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public convenience init<ShapedArray>(_ shapedArray: ShapedArray) where ShapedArray : MLShapedArrayProtocol { fatalError() }
}

// MARK: - MLShapedArrayScalar

/// https://developer.apple.com/documentation/coreml/mlshapedarrayscalar (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public protocol MLShapedArrayScalar {
    /// https://developer.apple.com/documentation/coreml/mlshapedarrayscalar/multiarraydatatype (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    static var multiArrayDataType: MLMultiArrayDataType { get }
}

// Conforming types: the MLShapedArray page lists them, but the stored copy of
// that list is cut off, and no page for the individual conformances was found
// in the stored docs. Float, Double and Int32 (and Float16, see below) are from
// the Core ML Swift interface as observed; availability is that of the protocol.

/// Float : MLShapedArrayScalar (conformance page not found in the stored docs; iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0 as the protocol)
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Float: MLShapedArrayScalar {
    public static var multiArrayDataType: MLMultiArrayDataType { fatalError() }
}

/// Double : MLShapedArrayScalar (conformance page not found in the stored docs; iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0 as the protocol)
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Double: MLShapedArrayScalar {
    public static var multiArrayDataType: MLMultiArrayDataType { fatalError() }
}

/// Int32 : MLShapedArrayScalar (conformance page not found in the stored docs; iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0 as the protocol)
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Int32: MLShapedArrayScalar {
    public static var multiArrayDataType: MLMultiArrayDataType { fatalError() }
}

// Float16 does not exist on x86_64 macOS / Mac Catalyst, so the conformance is
// left out there (the guard is irrelevant on Linux, where Float16 exists).
#if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
/// Float16 : MLShapedArrayScalar (conformance page not found in the stored docs; availability taken from
/// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float16: iOS 16.0, macOS 12.0, tvOS 16.0, watchOS 9.0, visionOS 1.0)
@available(macOS 12.0, iOS 16.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension Float16: MLShapedArrayScalar {
    public static var multiArrayDataType: MLMultiArrayDataType { fatalError() }
}
#endif

// MARK: - MLShapedArrayProtocol

/// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
/// `protocol MLShapedArrayProtocol<Scalar> : ExpressibleByArrayLiteral, MutableCollection, RandomAccessCollection where Self.Index == Int`
/// Only the associated type is declared as a requirement here; the other
/// members used are documented as protocol-extension members.
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public protocol MLShapedArrayProtocol<Scalar>: ExpressibleByArrayLiteral, MutableCollection, RandomAccessCollection where Self.Index == Int {
    /// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol/scalar-swift.associatedtype (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    associatedtype Scalar: MLShapedArrayScalar
}

@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension MLShapedArrayProtocol {
    /// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol/init(_:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    public init(_ multiArray: MLMultiArray) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol/init(converting:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    public init(converting multiArray: MLMultiArray) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol/init(scalars:shape:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    public init<S>(scalars: S, shape: [Int]) where S : Sequence, Self.Scalar == S.Element { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlshapedarrayprotocol/scalars (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    public var scalars: [Self.Scalar] {
        get { fatalError() }
        set { fatalError() }
    }
}

// MARK: - MLShapedArray

/// https://developer.apple.com/documentation/coreml/mlshapedarray (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
/// `struct MLShapedArray<Scalar> where Scalar : MLShapedArrayScalar`
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct MLShapedArray<Scalar> where Scalar : MLShapedArrayScalar {
    /// https://developer.apple.com/documentation/coreml/mlshapedarray/init(_:) (iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 1.0)
    /// Note: this concrete initializer is documented iOS 18.0; the same call
    /// `MLShapedArray<Scalar>(multiArray)` resolves on iOS 15–17 to the
    /// MLShapedArrayProtocol extension initializer init(_:) (iOS 15.0).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 1.0, *)
    public init(_ multiArray: MLMultiArray) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlshapedarray/init(data:shape:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    public init(data: Data, shape: [Int]) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlshapedarray/init(scalars:shape:) (iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 1.0)
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 1.0, *)
    public init<S>(scalars: S, shape: [Int]) where Scalar == S.Element, S : Sequence { fatalError() }
}

/// Conformance of MLShapedArray to MLShapedArrayProtocol (stated by
/// https://developer.apple.com/documentation/coreml/mlmultiarray/init(_:)-wk41, whose parameter is "An `MLShapedArray`").
/// The Collection / ExpressibleByArrayLiteral witnesses below are needed only to
/// satisfy the compiler. Their exact element types (slice for Element, scalar
/// for ArrayLiteralElement) are not shown on any page found in the stored docs.
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension MLShapedArray: MLShapedArrayProtocol {
    public typealias Index = Int
    public typealias Element = MLShapedArraySlice<Scalar>
    public typealias ArrayLiteralElement = Scalar
    public init(arrayLiteral elements: Scalar...) { fatalError() }
    public var startIndex: Int { fatalError() }
    public var endIndex: Int { fatalError() }
    public subscript(position: Int) -> MLShapedArraySlice<Scalar> {
        get { fatalError() }
        set { fatalError() }
    }
}

/// https://developer.apple.com/documentation/coreml/mlshapedarrayslice (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
/// Declared only as the element type of MLShapedArray; no members.
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct MLShapedArraySlice<Scalar> where Scalar : MLShapedArrayScalar {}

// MARK: - MLDictionaryFeatureProvider

/// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLDictionaryFeatureProvider: NSObject, MLFeatureProvider {
    /// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider/init(dictionary:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    /// Documented as a designated `init(dictionary: [String : Any]) throws` (not `convenience`).
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public init(dictionary: [String : Any]) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider/subscript(_:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    /// `subscript(featureName: String) -> MLFeatureValue? { get }`
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open subscript(featureName: String) -> MLFeatureValue? { fatalError() }

    /// MLFeatureProvider requirement: https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurenames (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    open var featureNames: Set<String> { fatalError() }

    /// MLFeatureProvider requirement: https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurevalue(for:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    open func featureValue(for featureName: String) -> MLFeatureValue? { fatalError() }
}

// MARK: - MLArrayBatchProvider

/// https://developer.apple.com/documentation/coreml/mlarraybatchprovider (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
open class MLArrayBatchProvider: NSObject, MLBatchProvider {
    /// https://developer.apple.com/documentation/coreml/mlarraybatchprovider/init(array:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    @available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
    public init(array: [any MLFeatureProvider]) { fatalError() }

    /// MLBatchProvider requirement: https://developer.apple.com/documentation/coreml/mlbatchprovider/count (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    open var count: Int { fatalError() }

    /// MLBatchProvider requirement: https://developer.apple.com/documentation/coreml/mlbatchprovider/features(at:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    open func features(at index: Int) -> any MLFeatureProvider { fatalError() }
}

// MARK: - MLModelConfiguration, MLPredictionOptions, MLModelDescription

/// https://developer.apple.com/documentation/coreml/mlmodelconfiguration (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
/// `init()` is NSObject's (inherited; https://developer.apple.com/documentation/objectivec/nsobject-swift.class/init()).
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
open class MLModelConfiguration: NSObject {}

/// https://developer.apple.com/documentation/coreml/mlpredictionoptions (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
/// `init()` is NSObject's (inherited).
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLPredictionOptions: NSObject {}

/// https://developer.apple.com/documentation/coreml/mlmodeldescription (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
/// Declared minimal (no members): only the type is needed.
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLModelDescription: NSObject {}

// MARK: - MLModel

/// https://developer.apple.com/documentation/coreml/mlmodel (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
open class MLModel: NSObject {

    /// https://developer.apple.com/documentation/coreml/mlmodel/modeldescription (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open var modelDescription: MLModelDescription { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/configuration (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    @available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
    open var configuration: MLModelConfiguration { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/init(contentsof:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public convenience init(contentsOf url: URL) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/init(contentsof:configuration:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    @available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
    public convenience init(contentsOf url: URL, configuration: MLModelConfiguration) throws { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/prediction(from:)-9y2aa (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open func prediction(from input: any MLFeatureProvider) throws -> any MLFeatureProvider { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/prediction(from:options:)-81mr6 (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    open func prediction(from input: any MLFeatureProvider, options: MLPredictionOptions) throws -> any MLFeatureProvider { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/predictions(from:options:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    /// Note: `options` has NO default argument on this page.
    @available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
    open func predictions(from inputBatch: any MLBatchProvider, options: MLPredictionOptions) throws -> any MLBatchProvider { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/predictions(frombatch:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
    @available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
    open func predictions(fromBatch inputBatch: any MLBatchProvider) throws -> any MLBatchProvider { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/compilemodel(at:)-6442s (iOS 11.0, macOS 10.13, tvOS 11.0, visionOS 1.0; no watchOS)
    /// The page lists an end version of 27.0 on every platform (deprecation in a
    /// release that is not out yet), so no `deprecated:` is written here.
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    open class func compileModel(at modelURL: URL) throws -> URL { fatalError() }
}

@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
extension MLModel {
    /// https://developer.apple.com/documentation/coreml/mlmodel/load(contentsof:configuration:completionhandler:) (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public class func load(contentsOf url: URL, configuration: MLModelConfiguration = MLModelConfiguration(), completionHandler handler: @escaping (Result<MLModel, any Error>) -> Void) { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/load(contentsof:configuration:) (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0)
    @available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public class func load(contentsOf url: URL, configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> MLModel { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/prediction(from:options:)-3vg03 (iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0)
    /// Note: documented WITH a default argument `options: MLPredictionOptions = MLPredictionOptions()`.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    public func prediction(from input: any MLFeatureProvider, options: MLPredictionOptions = MLPredictionOptions()) async throws -> any MLFeatureProvider { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/compilemodel(at:)-45ao6 (iOS 16.0, macOS 13.0, tvOS 16.0, visionOS 1.0; no watchOS)
    /// The page compilemodel(at:)-3nea (the import of Objective-C
    /// compileModelAtURL:completionHandler:, same platforms) shows the same
    /// signature with the parameter name `modelURL`; only one can be declared.
    @available(macOS 13.0, iOS 16.0, tvOS 16.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public class func compileModel(at url: URL) async throws -> URL { fatalError() }

    /// https://developer.apple.com/documentation/coreml/mlmodel/compilemodel(at:completionhandler:) (iOS 16.0, macOS 13.0, tvOS 16.0, visionOS 1.0; no watchOS)
    @available(macOS 13.0, iOS 16.0, tvOS 16.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public class func compileModel(at url: URL, completionHandler handler: @escaping (Result<URL, any Error>) -> Void) { fatalError() }
}
