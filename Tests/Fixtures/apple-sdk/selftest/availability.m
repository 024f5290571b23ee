// Self-test for the Objective-C stand-ins (must compile cleanly).
// Exercises ARC, blocks, @autoreleasepool, object literals, boxed numbers,
// lightweight generics, instancetype, NS_DESIGNATED_INITIALIZER,
// NS_UNAVAILABLE, NS_ASSUME_NONNULL, __autoreleasing, nullability, and —
// the point of the exercise — availability: the class below is annotated
// with Core ML's first versions, and the one method that calls an iOS 13 API
// carries API_AVAILABLE(ios(13.0), ...). availability_bad.m is the same call
// without that annotation and must be rejected.
#import <Foundation/Foundation.h>
#import <CoreML/CoreML.h>
#import <CoreVideo/CoreVideo.h>
#import <CoreGraphics/CoreGraphics.h>
#import <os/log.h>

NS_ASSUME_NONNULL_BEGIN

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface SelfTestInput : NSObject <MLFeatureProvider>
@property (readwrite, nonatomic) CVPixelBufferRef image;
@property (readwrite, nonatomic, strong) NSArray<NSString *> *labels;
- (instancetype)init NS_UNAVAILABLE;
- (instancetype)initWithImage:(CVPixelBufferRef)image NS_DESIGNATED_INITIALIZER;
- (nullable instancetype)initWithCGImage:(CGImageRef)image error:(NSError * _Nullable __autoreleasing * _Nullable)error
    API_AVAILABLE(macos(10.15), ios(13.0), tvos(13.0), watchos(6.0), visionos(1.0));
@end

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@implementation SelfTestInput

- (instancetype)initWithImage:(CVPixelBufferRef)image {
    self = [super init];
    if (self) {
        _image = image;
        CVPixelBufferRetain(_image);
        _labels = @[@"a", @"b"];
    }
    return self;
}

// Calls an iOS 13 API; allowed because the method itself is annotated iOS 13.
- (nullable instancetype)initWithCGImage:(CGImageRef)image error:(NSError * _Nullable __autoreleasing * _Nullable)error {
    MLFeatureValue *value = [MLFeatureValue featureValueWithCGImage:image
                                                         pixelsWide:224
                                                         pixelsHigh:224
                                                    pixelFormatType:kCVPixelFormatType_32ARGB
                                                            options:@{MLFeatureValueImageOptionCropAndScale: @(3.0)}
                                                              error:error];
    if (value == nil) { return nil; }
    return [self initWithImage:(CVPixelBufferRef _Nonnull)value.imageBufferValue];
}

- (void)dealloc {
    CVPixelBufferRelease(_image);
}

- (NSSet<NSString *> *)featureNames {
    return [NSSet setWithArray:@[@"image"]];
}

- (nullable MLFeatureValue *)featureValueForName:(NSString *)featureName {
    if ([featureName isEqualToString:@"image"]) {
        return [MLFeatureValue featureValueWithPixelBuffer:self.image];
    }
    return nil;
}

@end

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface SelfTestModel : NSObject
@property (readonly, nonatomic, nullable) MLModel *model;
+ (nullable NSURL *)URLOfModelInThisBundle;
@end

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@implementation SelfTestModel

+ (nullable NSURL *)URLOfModelInThisBundle {
    NSString *assetPath = [[NSBundle bundleForClass:[self class]] pathForResource:@"SelfTest" ofType:@"mlmodelc"];
    if (nil == assetPath) { os_log_error(OS_LOG_DEFAULT, "Could not load SelfTest.mlmodelc in the bundle resource"); return nil; }
    return [NSURL fileURLWithPath:assetPath];
}

- (nullable id<MLFeatureProvider>)predict:(SelfTestInput *)input error:(NSError * _Nullable __autoreleasing * _Nullable)error {
    @autoreleasepool {
        NSError *localError = nil;
        MLModel *model = [MLModel modelWithContentsOfURL:(NSURL * _Nonnull)[[self class] URLOfModelInThisBundle] error:&localError];
        if (model == nil) { if (error) { *error = localError; } return nil; }
        MLPredictionOptions *options = [[MLPredictionOptions alloc] init];
        NSDictionary<NSString *, NSNumber *> *extra = @{@"scale": @(2.0), @"count": [NSNumber numberWithLongLong:3]};
        (void)extra;
        return [model predictionFromFeatures:input options:options error:error];
    }
}

// iOS 12 and iOS 16 APIs, each guarded by @available at the call site.
- (void)batchAndCompile:(NSArray<SelfTestInput *> *)inputs {
    if (@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)) {
        MLArrayBatchProvider *batch = [[MLArrayBatchProvider alloc] initWithFeatureProviderArray:inputs];
        MLModelConfiguration *configuration = [[MLModelConfiguration alloc] init];
        (void)batch; (void)configuration;
    }
    if (@available(macOS 13.0, iOS 16.0, tvOS 16.0, *)) {
        [MLModel compileModelAtURL:[NSFileManager defaultManager].temporaryDirectory
                 completionHandler:^(NSURL * _Nullable compiledModelURL, NSError * _Nullable error) {
            NSString *message = [NSString stringWithFormat:@"%@ %@", compiledModelURL.path, [NSUUID UUID].UUIDString];
            (void)message; (void)error;
        }];
    }
}

@end

NS_ASSUME_NONNULL_END
