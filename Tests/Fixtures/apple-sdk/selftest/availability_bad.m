// Self-test: must FAIL to compile under -Werror=unguarded-availability.
// The class is annotated with Core ML's first versions only (iOS 11, macOS
// 10.13, tvOS 11), and its method calls an iOS 13 / macOS 10.15 / tvOS 13
// API without an API_AVAILABLE annotation or an @available check.
#import <Foundation/Foundation.h>
#import <CoreML/CoreML.h>

NS_ASSUME_NONNULL_BEGIN

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@interface SelfTestBad : NSObject
- (nullable MLFeatureValue *)valueForImage:(CGImageRef)image error:(NSError **)error;
@end

API_AVAILABLE(macos(10.13), ios(11.0), tvos(11.0), watchos(4.0), visionos(1.0))
@implementation SelfTestBad
- (nullable MLFeatureValue *)valueForImage:(CGImageRef)image error:(NSError **)error {
    return [MLFeatureValue featureValueWithCGImage:image
                                        pixelsWide:224
                                        pixelsHigh:224
                                   pixelFormatType:kCVPixelFormatType_32BGRA
                                           options:nil
                                             error:error];
}
@end

NS_ASSUME_NONNULL_END
