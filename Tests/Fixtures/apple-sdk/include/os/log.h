/*
 * Declaration-only stand-in for the part of <os/log.h> that Xcode-generated
 * Core ML Objective-C classes use: os_log_t, OS_LOG_DEFAULT, os_log_error.
 * Written from the documented meaning, not copied. Nothing can be linked.
 */
#ifndef APPLE_SDK_STUB_OS_LOG_H
#define APPLE_SDK_STUB_OS_LOG_H

#import <Foundation/Foundation.h>

// https://developer.apple.com/documentation/os/os_log_t (the page lists no platform versions)
// Page: `typedef NSObject<OS_os_log> * os_log_t;` (the Objective-C form).
@protocol OS_os_log <NSObject>
@end
typedef NSObject<OS_os_log> *os_log_t;

// https://developer.apple.com/documentation/os/os_log_default (the page lists no platform versions)
// Page: `#define OS_LOG_DEFAULT`. As in the header as observed, it names a global
// log object; the object here is only declared.
extern struct os_log_s _os_log_default;
#define OS_LOG_DEFAULT ((__bridge os_log_t)(void *)&_os_log_default)

// Not an Apple API: the one function the os_log_error macro below expands to.
// Availability is that of the os_log API, from
// https://developer.apple.com/documentation/os/oslog/default (iOS 10.0, macOS 10.12, tvOS 10.0, watchOS 3.0)
// (that page lists no visionOS version).
extern void __apple_sdk_stub_os_log_error(os_log_t _Nonnull log, const char * _Nonnull format, ...)
    __attribute__((format(os_log, 2, 3)))
    API_AVAILABLE(macos(10.12), ios(10.0), tvos(10.0), watchos(3.0));

// https://developer.apple.com/documentation/os/os_log_error (not found in the stored docs; the documented siblings
// https://developer.apple.com/documentation/os/os_log_info and .../os_log_fault are `#define os_log_X(log, format, ...)`).
// As in Apple's header, `format` must be a C string literal (not @"..."): the
// `"" format ""` concatenation below rejects anything else at compile time.
#define os_log_error(log, format, ...) \
    __apple_sdk_stub_os_log_error((log), "" format "", ##__VA_ARGS__)

#endif /* APPLE_SDK_STUB_OS_LOG_H */
