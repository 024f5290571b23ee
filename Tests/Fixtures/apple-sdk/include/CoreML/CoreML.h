/*
 * Declaration-only stand-in for the Core ML Objective-C API that
 * Xcode-generated model classes (MyModelInput, MyModelOutput, MyModel) use.
 * There are only @interface / @protocol declarations; nothing can be linked
 * or run.
 *
 * Each declaration cites the Apple documentation page it was read from, with
 * the availability that page lists (iOS, macOS, tvOS, watchOS, visionOS), and
 * carries the same availability as API_AVAILABLE(...) / API_UNAVAILABLE(...),
 * so that clang's -Werror=unguarded-availability checks uses against the
 * deployment target of -target.
 *
 * Most Core ML pages show the Swift declaration; the Objective-C selector is
 * taken from the page's identifier (e.g. c:objc(cs)MLModel(cm)modelWithContentsOfURL:error:).
 * Apple's pages strip nullability from Objective-C, so nullability is derived
 * from the Swift form on the same page (`T?` -> nullable; `throws` on a method
 * returning an object -> nullable result + NSError **).
 */
#ifndef APPLE_SDK_STUB_COREML_H
#define APPLE_SDK_STUB_COREML_H

#import <Foundation/Foundation.h>
#import <CoreVideo/CoreVideo.h>
#import <CoreGraphics/CoreGraphics.h>

NS_ASSUME_NONNULL_BEGIN

@class MLFeatureValue, MLMultiArray, MLModelDescription, MLModelConfiguration, MLPredictionOptions;

/* ------------------------------------------------------------------------
 * MLFeatureProvider, MLBatchProvider
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mlfeatureprovider (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// The Swift form on the page (`protocol MLFeatureProvider`) does not refine
// NSObjectProtocol, so the protocol does not adopt <NSObject>.
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@protocol MLFeatureProvider
// https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurenames (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@property (readonly, nonatomic) NSSet<NSString *> *featureNames;
// https://developer.apple.com/documentation/coreml/mlfeatureprovider/featurevalue(for:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable MLFeatureValue *)featureValueForName:(NSString *)featureName;
@end

// https://developer.apple.com/documentation/coreml/mlbatchprovider (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0))
@protocol MLBatchProvider
// https://developer.apple.com/documentation/coreml/mlbatchprovider/count (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
@property (readonly, nonatomic) NSInteger count;
// https://developer.apple.com/documentation/coreml/mlbatchprovider/features(at:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
- (id<MLFeatureProvider>)featuresAtIndex:(NSInteger)index;
@end

/* ------------------------------------------------------------------------
 * MLMultiArray
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mlmultiarraydatatype (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// Raw values are not on Apple's pages; from the MLMultiArray.h header as observed.
typedef NS_ENUM(NSInteger, MLMultiArrayDataType) {
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/double (own page not found in the stored docs; listed on the enum page)
    MLMultiArrayDataTypeDouble = 0x10000 | 64,
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float64 (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
    MLMultiArrayDataTypeFloat64 API_AVAILABLE(macos(11.0), ios(14.0), tvos(14.0), watchos(7.0), visionos(1.0)) = 0x10000 | 64,
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float32 (own page not found in the stored docs; listed on the enum page)
    MLMultiArrayDataTypeFloat32 = 0x10000 | 32,
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float16 (iOS 16.0, macOS 12.0, tvOS 16.0, watchOS 9.0, visionOS 1.0)
    MLMultiArrayDataTypeFloat16 API_AVAILABLE(macos(12.0), ios(16.0), tvos(16.0), watchos(9.0), visionos(1.0)) = 0x10000 | 16,
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/float (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
    MLMultiArrayDataTypeFloat API_AVAILABLE(macos(11.0), ios(14.0), tvos(14.0), watchos(7.0), visionos(1.0)) = 0x10000 | 32,
    // https://developer.apple.com/documentation/coreml/mlmultiarraydatatype/int32 (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
    MLMultiArrayDataTypeInt32 = 0x20000 | 32,
} API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmultiarray (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLMultiArray : NSObject
// https://developer.apple.com/documentation/coreml/mlmultiarray/init(shape:datatype:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable instancetype)initWithShape:(NSArray<NSNumber *> *)shape dataType:(MLMultiArrayDataType)dataType error:(NSError **)error;
@end

/* ------------------------------------------------------------------------
 * MLFeatureValue
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mlfeaturevalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLFeatureValue : NSObject <NSCopying>

// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imagebuffervalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@property (readonly, nullable, nonatomic) CVPixelBufferRef imageBufferValue;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/multiarrayvalue (not found in the stored docs; from the header as observed; availability of the class)
@property (readonly, nullable, nonatomic) MLMultiArray *multiArrayValue;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/stringvalue (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@property (readonly, nonatomic, copy) NSString *stringValue;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/int64value (not found in the stored docs; from the header as observed; availability of the class)
@property (readonly, nonatomic) int64_t int64Value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/doublevalue (not found in the stored docs; from the header as observed; availability of the class)
@property (readonly, nonatomic) double doubleValue;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/dictionaryvalue (not found in the stored docs; from the header as observed; availability of the class)
@property (readonly, nonatomic) NSDictionary<id, NSNumber *> *dictionaryValue;

// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(pixelbuffer:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
+ (instancetype)featureValueWithPixelBuffer:(CVPixelBufferRef)value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(double:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
+ (instancetype)featureValueWithDouble:(double)value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(int64:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
+ (instancetype)featureValueWithInt64:(int64_t)value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(string:) (not found in the stored docs; from the header as observed; availability of the class)
+ (instancetype)featureValueWithString:(NSString *)value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(multiarray:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
+ (instancetype)featureValueWithMultiArray:(MLMultiArray *)value;
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(dictionary:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// Swift `[AnyHashable : NSNumber]` <-> Objective-C NSDictionary<id, NSNumber *>.
+ (nullable instancetype)featureValueWithDictionary:(NSDictionary<id, NSNumber *> *)value error:(NSError **)error;
@end

// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// Objective-C typedef MLFeatureValueImageOption (c:@T@MLFeatureValueImageOption); the
// page's unlabeled init(_:) means an extensible typed enum.
typedef NSString * MLFeatureValueImageOption NS_TYPED_EXTENSIBLE_ENUM
    API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/croprect (own page not found in the stored docs;
// listed on the ImageOption page; availability as cropAndScale: iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
FOUNDATION_EXTERN const MLFeatureValueImageOption MLFeatureValueImageOptionCropRect
    API_AVAILABLE(macos(10.15), ios(13.0), tvos(13.0), watchos(6.0), visionos(1.0));
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/imageoption/cropandscale (iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
FOUNDATION_EXTERN const MLFeatureValueImageOption MLFeatureValueImageOptionCropAndScale
    API_AVAILABLE(macos(10.15), ios(13.0), tvos(13.0), watchos(6.0), visionos(1.0));

// Category name MLImageConversion as in the header as observed.
@interface MLFeatureValue (MLImageConversion)
// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(cgimage:pixelswide:pixelshigh:pixelformattype:options:)-1pdp4
// (not found in the stored docs — only linked; from the header as observed; availability as the documented
// sibling init(imageAt:...): iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
+ (nullable instancetype)featureValueWithCGImage:(CGImageRef)cgImage
                                      pixelsWide:(NSInteger)pixelsWide
                                      pixelsHigh:(NSInteger)pixelsHigh
                                 pixelFormatType:(OSType)pixelFormatType
                                         options:(nullable NSDictionary<MLFeatureValueImageOption, id> *)options
                                           error:(NSError **)error
    API_AVAILABLE(macos(10.15), ios(13.0), tvos(13.0), watchos(6.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlfeaturevalue/init(imageat:pixelswide:pixelshigh:pixelformattype:options:) (iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0)
+ (nullable instancetype)featureValueWithImageAtURL:(NSURL *)url
                                         pixelsWide:(NSInteger)pixelsWide
                                         pixelsHigh:(NSInteger)pixelsHigh
                                    pixelFormatType:(OSType)pixelFormatType
                                            options:(nullable NSDictionary<MLFeatureValueImageOption, id> *)options
                                              error:(NSError **)error
    API_AVAILABLE(macos(10.15), ios(13.0), tvos(13.0), watchos(6.0), visionos(1.0));
@end

/* ------------------------------------------------------------------------
 * MLDictionaryFeatureProvider, MLArrayBatchProvider
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLDictionaryFeatureProvider : NSObject <MLFeatureProvider>
// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider/init(dictionary:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable instancetype)initWithDictionary:(NSDictionary<NSString *, id> *)dictionary error:(NSError **)error;
// https://developer.apple.com/documentation/coreml/mldictionaryfeatureprovider/subscript(_:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable MLFeatureValue *)objectForKeyedSubscript:(NSString *)featureName;
@end

// https://developer.apple.com/documentation/coreml/mlarraybatchprovider (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0))
@interface MLArrayBatchProvider : NSObject <MLBatchProvider>
// https://developer.apple.com/documentation/coreml/mlarraybatchprovider/init(array:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
- (instancetype)initWithFeatureProviderArray:(NSArray<id<MLFeatureProvider>> *)array;
@end

/* ------------------------------------------------------------------------
 * MLModelConfiguration, MLPredictionOptions, MLModelDescription
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mlmodelconfiguration (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
// (-init is NSObject's)
API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0))
@interface MLModelConfiguration : NSObject <NSCopying>
@end

// https://developer.apple.com/documentation/coreml/mlpredictionoptions (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// (-init is NSObject's)
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLPredictionOptions : NSObject
@end

// https://developer.apple.com/documentation/coreml/mlmodeldescription (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
// Declared minimal (no members).
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLModelDescription : NSObject
@end

/* ------------------------------------------------------------------------
 * MLModel
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/coreml/mlmodel (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface MLModel : NSObject

// https://developer.apple.com/documentation/coreml/mlmodel/modeldescription (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
@property (readonly, nonatomic) MLModelDescription *modelDescription;

// https://developer.apple.com/documentation/coreml/mlmodel/configuration (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
@property (readonly, nonatomic) MLModelConfiguration *configuration
    API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/init(contentsof:) (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
+ (nullable instancetype)modelWithContentsOfURL:(NSURL *)url error:(NSError **)error;

// https://developer.apple.com/documentation/coreml/mlmodel/init(contentsof:configuration:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
+ (nullable instancetype)modelWithContentsOfURL:(NSURL *)url configuration:(MLModelConfiguration *)configuration error:(NSError **)error
    API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/loadcontentsofurl:configuration:completionhandler: (iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0)
// Page: `+ (void) loadContentsOfURL:(NSURL *) url configuration:(MLModelConfiguration *) configuration completionHandler:(void (^)(MLModel *model, NSError *error)) handler;`
// (block parameters nullable: exactly one of model / error is set.)
+ (void)loadContentsOfURL:(NSURL *)url
            configuration:(MLModelConfiguration *)configuration
        completionHandler:(void (^)(MLModel * _Nullable model, NSError * _Nullable error))handler
    API_AVAILABLE(macos(11.0), ios(14.0), tvos(14.0), watchos(7.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/prediction(from:)-9y2aa (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)input error:(NSError **)error;

// https://developer.apple.com/documentation/coreml/mlmodel/prediction(from:options:)-81mr6 (iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0)
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)input options:(MLPredictionOptions *)options error:(NSError **)error;

// https://developer.apple.com/documentation/coreml/mlmodel/predictionfromfeatures:completionhandler: (iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0)
// Page: `- (void) predictionFromFeatures:(id<MLFeatureProvider>) input completionHandler:(void (^)(id<MLFeatureProvider>output, NSError *error)) completionHandler;`
- (void)predictionFromFeatures:(id<MLFeatureProvider>)input
             completionHandler:(void (^)(id<MLFeatureProvider> _Nullable output, NSError * _Nullable error))completionHandler
    API_AVAILABLE(macos(14.0), ios(17.0), tvos(17.0), watchos(10.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/predictionfromfeatures:options:completionhandler: (not found in the stored docs;
// from the header as observed; availability as the documented Swift async prediction(from:options:)-3vg03 and as
// predictionFromFeatures:completionHandler:: iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0)
- (void)predictionFromFeatures:(id<MLFeatureProvider>)input
                       options:(MLPredictionOptions *)options
             completionHandler:(void (^)(id<MLFeatureProvider> _Nullable output, NSError * _Nullable error))completionHandler
    API_AVAILABLE(macos(14.0), ios(17.0), tvos(17.0), watchos(10.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/predictions(from:options:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
- (nullable id<MLBatchProvider>)predictionsFromBatch:(id<MLBatchProvider>)inputBatch options:(MLPredictionOptions *)options error:(NSError **)error
    API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0));

// https://developer.apple.com/documentation/coreml/mlmodel/predictions(frombatch:) (iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0)
- (nullable id<MLBatchProvider>)predictionsFromBatch:(id<MLBatchProvider>)inputBatch error:(NSError **)error
    API_AVAILABLE(macos(10.14), ios(12.0), tvos(12.0), watchos(5.0), visionos(1.0));
@end

// Category name MLModelCompilation as in the header as observed.
@interface MLModel (MLModelCompilation)
// https://developer.apple.com/documentation/coreml/mlmodel/compilemodel(at:)-6442s (iOS 11.0, macOS 10.13, tvOS 11.0, visionOS 1.0; no watchOS)
// The page gives an end version 27.0 on every platform (a deprecation in a
// release that is not out yet), so no deprecation attribute is written here.
+ (nullable NSURL *)compileModelAtURL:(NSURL *)modelURL error:(NSError **)error
    API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), visionos(1.0)) API_UNAVAILABLE(watchos);

// https://developer.apple.com/documentation/coreml/mlmodel/compilemodel(at:)-3nea (iOS 16.0, macOS 13.0, tvOS 16.0, visionOS 1.0; no watchOS)
// That page shows the Swift async import `class func compileModel(at modelURL: URL) async throws -> URL`
// of this method; the Objective-C page itself was not found in the stored docs (block form from the header as observed).
+ (void)compileModelAtURL:(NSURL *)modelURL
        completionHandler:(void (^)(NSURL * _Nullable compiledModelURL, NSError * _Nullable error))handler
    API_AVAILABLE(macos(13.0), ios(16.0), tvos(16.0), visionos(1.0)) API_UNAVAILABLE(watchos);
@end

NS_ASSUME_NONNULL_END

#endif /* APPLE_SDK_STUB_COREML_H */
