/*
 * Declaration-only stand-in for the availability macros of Apple's SDK
 * (<os/availability.h>, used through <Availability.h> / <Foundation/Foundation.h>).
 * Written from the documented meaning of the macros, not copied:
 *
 *   API_AVAILABLE(macos(10.13), ios(11.0))
 *     -> __attribute__((availability(macos,introduced=10.13)))
 *        __attribute__((availability(ios,introduced=11.0)))
 *   API_UNAVAILABLE(watchos)
 *     -> __attribute__((availability(watchos,unavailable)))
 *
 * Platforms: macos, ios, tvos, watchos, visionos (clang 21 accepts the
 * platform name "visionos"; "xros" is reported as an unknown platform).
 * With -Werror=unguarded-availability(-new), clang then rejects a use of an
 * API newer than the deployment target unless it is inside @available(...)
 * or inside a declaration annotated with at least that availability.
 */
#ifndef APPLE_SDK_STUB_OS_AVAILABILITY_H
#define APPLE_SDK_STUB_OS_AVAILABILITY_H

#define __API_STUB_INTRODUCED_macos(v)    macos,introduced=v
#define __API_STUB_INTRODUCED_ios(v)      ios,introduced=v
#define __API_STUB_INTRODUCED_tvos(v)     tvos,introduced=v
#define __API_STUB_INTRODUCED_watchos(v)  watchos,introduced=v
#define __API_STUB_INTRODUCED_visionos(v) visionos,introduced=v

#define __API_STUB_UNAVAILABLE_macos      macos,unavailable
#define __API_STUB_UNAVAILABLE_ios        ios,unavailable
#define __API_STUB_UNAVAILABLE_tvos       tvos,unavailable
#define __API_STUB_UNAVAILABLE_watchos    watchos,unavailable
#define __API_STUB_UNAVAILABLE_visionos   visionos,unavailable

/* one attribute per platform argument: ios(13.0) -> __API_STUB_INTRODUCED_ios(13.0) */
#define __API_STUB_A(p) __attribute__((availability(__API_STUB_INTRODUCED_##p)))
#define __API_STUB_U(p) __attribute__((availability(__API_STUB_UNAVAILABLE_##p)))

#define __API_STUB_A1(a) __API_STUB_A(a)
#define __API_STUB_A2(a,b) __API_STUB_A(a) __API_STUB_A(b)
#define __API_STUB_A3(a,b,c) __API_STUB_A(a) __API_STUB_A(b) __API_STUB_A(c)
#define __API_STUB_A4(a,b,c,d) __API_STUB_A(a) __API_STUB_A(b) __API_STUB_A(c) __API_STUB_A(d)
#define __API_STUB_A5(a,b,c,d,e) __API_STUB_A(a) __API_STUB_A(b) __API_STUB_A(c) __API_STUB_A(d) __API_STUB_A(e)

#define __API_STUB_U1(a) __API_STUB_U(a)
#define __API_STUB_U2(a,b) __API_STUB_U(a) __API_STUB_U(b)
#define __API_STUB_U3(a,b,c) __API_STUB_U(a) __API_STUB_U(b) __API_STUB_U(c)
#define __API_STUB_U4(a,b,c,d) __API_STUB_U(a) __API_STUB_U(b) __API_STUB_U(c) __API_STUB_U(d)
#define __API_STUB_U5(a,b,c,d,e) __API_STUB_U(a) __API_STUB_U(b) __API_STUB_U(c) __API_STUB_U(d) __API_STUB_U(e)

#define __API_STUB_PICK(_1,_2,_3,_4,_5,NAME,...) NAME

#define API_AVAILABLE(...) \
    __API_STUB_PICK(__VA_ARGS__, __API_STUB_A5, __API_STUB_A4, __API_STUB_A3, __API_STUB_A2, __API_STUB_A1, unused)(__VA_ARGS__)
#define API_UNAVAILABLE(...) \
    __API_STUB_PICK(__VA_ARGS__, __API_STUB_U5, __API_STUB_U4, __API_STUB_U3, __API_STUB_U2, __API_STUB_U1, unused)(__VA_ARGS__)

#endif /* APPLE_SDK_STUB_OS_AVAILABILITY_H */
