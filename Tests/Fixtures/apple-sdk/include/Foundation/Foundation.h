/*
 * Declaration-only stand-in for the part of Apple's Foundation that
 * Xcode-generated Core ML Objective-C classes use. There are only @interface
 * declarations: nothing is implemented and nothing can be linked or run.
 * Used with
 *   clang -fsyntax-only -x objective-c -fobjc-arc -fblocks -target arm64-apple-ios11.0
 *     -Werror=unguarded-availability -Werror=unguarded-availability-new
 *     -nostdinc -isystem $(clang -print-resource-dir)/include
 *     -I Tests/Fixtures/apple-sdk/include Generated.m
 *
 * Each declaration cites the Apple documentation page it was read from (the
 * page usually shows the Swift form; the Objective-C form follows from the
 * selector in the page's identifier) and the availability that page lists
 * (iOS, macOS, tvOS, watchOS, visionOS). Nullability: Apple's pages strip
 * nullability from Objective-C signatures, so it is derived from the Swift
 * signature on the same page (`T?` -> nullable, `T` -> nonnull).
 */
#ifndef APPLE_SDK_STUB_FOUNDATION_H
#define APPLE_SDK_STUB_FOUNDATION_H

#include <stddef.h>   /* clang's own resource header: NULL, size_t */
#include <stdint.h>   /* clang's own resource header: int64_t, uint32_t */
#include <stdarg.h>
#include <os/availability.h>

/* ------------------------------------------------------------------------
 * Macros (declaration semantics as in Apple's SDK, written from scratch)
 * ------------------------------------------------------------------------ */

#define NS_ASSUME_NONNULL_BEGIN _Pragma("clang assume_nonnull begin")
#define NS_ASSUME_NONNULL_END   _Pragma("clang assume_nonnull end")
#define NS_DESIGNATED_INITIALIZER __attribute__((objc_designated_initializer))
#define NS_UNAVAILABLE __attribute__((unavailable))
#define NS_FORMAT_FUNCTION(F, A) __attribute__((format(__NSString__, F, A)))
#define NS_TYPED_ENUM __attribute__((swift_wrapper(struct)))
#define NS_TYPED_EXTENSIBLE_ENUM __attribute__((swift_wrapper(struct)))
#define NS_ENUM(_type, _name) \
    enum __attribute__((enum_extensibility(open))) _name : _type _name; \
    enum __attribute__((enum_extensibility(open))) _name : _type
#define NS_OPTIONS(_type, _name) \
    enum __attribute__((enum_extensibility(open), flag_enum)) _name : _type _name; \
    enum __attribute__((enum_extensibility(open), flag_enum)) _name : _type

#ifdef __cplusplus
#define FOUNDATION_EXTERN extern "C"
#else
#define FOUNDATION_EXTERN extern
#endif

/* ------------------------------------------------------------------------
 * Basic types
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/objectivec/nsinteger (page not looked up; LP64 definition as in the header as observed)
typedef long NSInteger;
// https://developer.apple.com/documentation/objectivec/nsuinteger (page not looked up; LP64 definition as in the header as observed)
typedef unsigned long NSUInteger;

// https://developer.apple.com/documentation/objectivec/bool (page not looked up; from objc.h as observed:
// BOOL is C bool where clang predefines __OBJC_BOOL_IS_BOOL (arm64 iOS/tvOS/visionOS), else signed char (x86_64 macOS))
#if defined(__OBJC_BOOL_IS_BOOL) && __OBJC_BOOL_IS_BOOL
typedef _Bool BOOL;
#else
typedef signed char BOOL;
#endif
#define YES __objc_yes
#define NO  __objc_no

#ifndef nil
#define nil ((void *)0)
#endif
#ifndef Nil
#define Nil ((void *)0)
#endif

/* ------------------------------------------------------------------------
 * NSObject
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/objectivec/nsobjectprotocol (protocol page not looked up; only -class is declared)
@protocol NSObject
// https://developer.apple.com/documentation/objectivec/nsobject-c.protocol/class (the page lists no platform versions)
- (null_unspecified Class)class;
@end

// https://developer.apple.com/documentation/foundation/nscopying (page not looked up; declared empty, for literal keys and <NSCopying> conformances)
@protocol NSCopying
@end

// https://developer.apple.com/documentation/objectivec/nsobject-swift.class (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 1.0, visionOS 1.0)
// NSObject lives in the Objective-C runtime header objc/NSObject.h, which (as
// observed) carries no nullability annotations; hence the explicit
// null_unspecified below, which also lets a subclass redeclare
// `- (nullable instancetype)init;` as Xcode-generated classes do.
__attribute__((objc_root_class))
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(1.0), visionos(1.0))
@interface NSObject <NSObject>
// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/alloc (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 1.0, visionOS 1.0)
+ (null_unspecified instancetype)alloc;
// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/new (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 1.0, visionOS 1.0)
+ (null_unspecified instancetype)new;
// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/init() (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 1.0, visionOS 1.0)
- (null_unspecified instancetype)init NS_DESIGNATED_INITIALIZER;
// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/class (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 1.0, visionOS 1.0)
+ (null_unspecified Class)class;
@end

NS_ASSUME_NONNULL_BEGIN

@class NSString, NSURL, NSError, NSArray<ObjectType>, NSDictionary<KeyType, ObjectType>;

/* ------------------------------------------------------------------------
 * NSString
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nsstring (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSString : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsstring/isequal(to:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)isEqualToString:(NSString *)aString;
// https://developer.apple.com/documentation/foundation/nsstring/stringwithformat: (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// The page shows `+ (instancetype) stringWithFormat:(NSString *) format;` without the variadic tail;
// `, ...` and the format attribute are from the header as observed.
+ (instancetype)stringWithFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1, 2);
@end

/* ------------------------------------------------------------------------
 * NSError
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nserror (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// No members are declared. (`NSError **` parameters are treated by clang as
// `NSError * _Nullable * _Nullable` inside NS_ASSUME_NONNULL regions.)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSError : NSObject <NSCopying>
@end

/* ------------------------------------------------------------------------
 * NSNumber
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nsnumber (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Apple's NSNumber is a subclass of NSValue; NSValue is left out here (none of its API is used).
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSNumber : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsnumber/init(value:)-15chk (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (NSNumber *)initWithDouble:(double)value NS_DESIGNATED_INITIALIZER;
// https://developer.apple.com/documentation/foundation/nsnumber/numberwithdouble: (not found in the stored docs; from the NSValue.h header as observed; availability of the class)
+ (NSNumber *)numberWithDouble:(double)value;
// https://developer.apple.com/documentation/foundation/nsnumber/numberwithlonglong: (not found in the stored docs; from the NSValue.h header as observed; availability of the class)
+ (NSNumber *)numberWithLongLong:(long long)value;
// https://developer.apple.com/documentation/foundation/nsnumber/doublevalue (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
@property (readonly) double doubleValue;
// https://developer.apple.com/documentation/foundation/nsnumber/longlongvalue (not found in the stored docs; from the NSValue.h header as observed,
// same form as the documented sibling longValue `@property (readonly) long longValue;`; availability of the class)
@property (readonly) long long longLongValue;
@end

/* ------------------------------------------------------------------------
 * NSArray, NSMutableArray, NSDictionary, NSSet
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nsarray (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSArray<__covariant ObjectType> : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsarray/count (not found in the stored docs; from the NSArray.h header as observed; availability of the class)
@property (readonly) NSUInteger count;
// https://developer.apple.com/documentation/foundation/nsarray/init(objects:count:)-7dct1 (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// (+arrayWithObjects:count: is what the compiler calls for an @[...] literal)
+ (instancetype)arrayWithObjects:(const ObjectType _Nonnull [_Nonnull])objects count:(NSUInteger)cnt;
@end

// https://developer.apple.com/documentation/foundation/nsmutablearray (class page not found in the stored docs; availability of its members: iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSMutableArray<ObjectType> : NSArray<ObjectType>
// https://developer.apple.com/documentation/foundation/nsmutablearray/init(capacity:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (instancetype)initWithCapacity:(NSUInteger)numItems NS_DESIGNATED_INITIALIZER;
// https://developer.apple.com/documentation/foundation/nsmutablearray/arraywithcapacity: (not found in the stored docs — only linked from init(capacity:); from the NSArray.h header as observed)
+ (instancetype)arrayWithCapacity:(NSUInteger)numItems;
// https://developer.apple.com/documentation/foundation/nsmutablearray/add(_:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (void)addObject:(ObjectType)anObject;
@end

// https://developer.apple.com/documentation/foundation/nsdictionary (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSDictionary<__covariant KeyType, __covariant ObjectType> : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsdictionary/dictionarywithobjects:forkeys:count: (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// (what the compiler calls for an @{...} literal)
+ (instancetype)dictionaryWithObjects:(const ObjectType _Nonnull [_Nullable])objects forKeys:(const id<NSCopying> _Nonnull [_Nullable])keys count:(NSUInteger)cnt;
@end

// https://developer.apple.com/documentation/foundation/nsset (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSSet<__covariant ObjectType> : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsset/init(array:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (instancetype)initWithArray:(NSArray<ObjectType> *)array;
// https://developer.apple.com/documentation/foundation/nsset/setwitharray: (not found in the stored docs — only linked from init(array:); from the NSSet.h header as observed)
+ (instancetype)setWithArray:(NSArray<ObjectType> *)array;
@end

/* ------------------------------------------------------------------------
 * NSURL
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nsurl (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSURL : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsurl/fileurl(withpath:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
+ (NSURL *)fileURLWithPath:(NSString *)path;
// https://developer.apple.com/documentation/foundation/nsurl/appendingpathcomponent(_:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Note: nullable result (Swift `-> URL?`).
- (nullable NSURL *)URLByAppendingPathComponent:(NSString *)pathComponent API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));
// https://developer.apple.com/documentation/foundation/nsurl/appendingpathcomponent(_:isdirectory:) (iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Note: nullable result (Swift `-> URL?`).
- (nullable NSURL *)URLByAppendingPathComponent:(NSString *)pathComponent isDirectory:(BOOL)isDirectory API_AVAILABLE(macos(10.7), ios(5.0), tvos(9.0), watchos(2.0), visionos(1.0));
// https://developer.apple.com/documentation/foundation/nsurl/pathextension (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
@property (nullable, readonly, copy) NSString *pathExtension API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));
// https://developer.apple.com/documentation/foundation/nsurl/path (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
@property (nullable, readonly, copy) NSString *path;
// https://developer.apple.com/documentation/foundation/nsurl/deletinglastpathcomponent (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
@property (nullable, readonly, copy) NSURL *URLByDeletingLastPathComponent API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));
@end

/* ------------------------------------------------------------------------
 * NSBundle
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/bundle (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSBundle : NSObject
// https://developer.apple.com/documentation/foundation/bundle/init(for:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
+ (NSBundle *)bundleForClass:(Class)aClass;
// https://developer.apple.com/documentation/foundation/bundle/path(forresource:oftype:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (nullable NSString *)pathForResource:(nullable NSString *)name ofType:(nullable NSString *)ext;
@end

/* ------------------------------------------------------------------------
 * NSFileManager
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/filemanager/searchpathdirectory (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Raw values are not on Apple's pages; from the NSPathUtilities.h header as observed. Only the case used is declared.
typedef NS_ENUM(NSUInteger, NSSearchPathDirectory) {
    // https://developer.apple.com/documentation/foundation/filemanager/searchpathdirectory/applicationsupportdirectory (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
    NSApplicationSupportDirectory = 14,
} API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/searchpathdomainmask (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Raw value from the NSPathUtilities.h header as observed. Only the case used is declared.
typedef NS_OPTIONS(NSUInteger, NSSearchPathDomainMask) {
    // https://developer.apple.com/documentation/foundation/filemanager/searchpathdomainmask/userdomainmask (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
    NSUserDomainMask = 1,
} API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/itemreplacementoptions (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
// Raw values from the NSFileManager.h header as observed.
typedef NS_OPTIONS(NSUInteger, NSFileManagerItemReplacementOptions) {
    NSFileManagerItemReplacementUsingNewMetadataOnly = 1UL << 0,
    NSFileManagerItemReplacementWithoutDeletingBackupItem = 1UL << 1,
} API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/fileattributekey (page not looked up; typedef as in the header as observed)
typedef NSString * NSFileAttributeKey NS_TYPED_EXTENSIBLE_ENUM;

// https://developer.apple.com/documentation/foundation/filemanager (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.0), ios(2.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSFileManager : NSObject
// https://developer.apple.com/documentation/foundation/filemanager/default (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
@property (class, readonly, strong) NSFileManager *defaultManager;

// https://developer.apple.com/documentation/foundation/filemanager/url(for:in:appropriatefor:create:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (nullable NSURL *)URLForDirectory:(NSSearchPathDirectory)directory inDomain:(NSSearchPathDomainMask)domain appropriateForURL:(nullable NSURL *)url create:(BOOL)shouldCreate error:(NSError **)error API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/fileexists(atpath:) (iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)fileExistsAtPath:(NSString *)path;

// https://developer.apple.com/documentation/foundation/filemanager/replaceitem(at:withitemat:backupitemname:options:resultingitemurl:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)replaceItemAtURL:(NSURL *)originalItemURL withItemAtURL:(NSURL *)newItemURL backupItemName:(nullable NSString *)backupItemName options:(NSFileManagerItemReplacementOptions)options resultingItemURL:(NSURL * _Nullable * _Nullable)resultingURL error:(NSError **)error API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/moveitem(at:to:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)moveItemAtURL:(NSURL *)srcURL toURL:(NSURL *)dstURL error:(NSError **)error API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/copyitem(at:to:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)copyItemAtURL:(NSURL *)srcURL toURL:(NSURL *)dstURL error:(NSError **)error API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/removeitem(at:) (iOS 4.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)removeItemAtURL:(NSURL *)URL error:(NSError **)error API_AVAILABLE(macos(10.6), ios(4.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/createdirectory(at:withintermediatedirectories:attributes:) (iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, visionOS 1.0)
- (BOOL)createDirectoryAtURL:(NSURL *)url withIntermediateDirectories:(BOOL)createIntermediates attributes:(nullable NSDictionary<NSFileAttributeKey, id> *)attributes error:(NSError **)error API_AVAILABLE(macos(10.7), ios(5.0), tvos(9.0), watchos(2.0), visionos(1.0));

// https://developer.apple.com/documentation/foundation/filemanager/temporarydirectory (iOS 10.0, macOS 10.12, tvOS 10.0, watchOS 3.0, visionOS 1.0)
@property (readonly, copy) NSURL *temporaryDirectory API_AVAILABLE(macos(10.12), ios(10.0), tvos(10.0), watchos(3.0), visionos(1.0));
@end

/* ------------------------------------------------------------------------
 * NSUUID
 * ------------------------------------------------------------------------ */

// https://developer.apple.com/documentation/foundation/nsuuid (iOS 6.0, macOS 10.8, tvOS 9.0, watchOS 2.0, visionOS 1.0)
API_AVAILABLE(macos(10.8), ios(6.0), tvos(9.0), watchos(2.0), visionos(1.0))
@interface NSUUID : NSObject <NSCopying>
// https://developer.apple.com/documentation/foundation/nsuuid/uuid (availability of the class)
+ (instancetype)UUID;
// https://developer.apple.com/documentation/foundation/nsuuid/uuidstring (availability of the class)
@property (readonly, copy) NSString *UUIDString;
@end

NS_ASSUME_NONNULL_END

#endif /* APPLE_SDK_STUB_FOUNDATION_H */
