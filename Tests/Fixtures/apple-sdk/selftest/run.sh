#!/usr/bin/env bash
# Self-test for the declaration-only Apple SDK stand-ins in Tests/Fixtures/apple-sdk.
#
# 1. Builds the Swift stand-ins into a module named CoreML and type-checks
#    selftest/usage.swift against it (every Swift stand-in is used once there).
# 2. Runs the Objective-C check on selftest/availability.m (must pass) and on
#    selftest/availability_bad.m (must fail with an availability error) for
#    iOS 11, macOS 10.13 and tvOS 11 deployment targets.
#
# Exits non-zero unless all of the above hold. Needs swiftc and clang on PATH
# (override with SWIFTC=... CLANG=...).
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDK="$(cd "$HERE/.." && pwd)"
SWIFTC="${SWIFTC:-swiftc}"
CLANG="${CLANG:-clang}"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/apple-sdk-selftest.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- Swift ---------------------------------------------------------------
if "$SWIFTC" -emit-module -module-name CoreML -parse-as-library \
        -emit-module-path "$OUT/CoreML.swiftmodule" "$SDK"/swift/*.swift >"$OUT/swift-module.log" 2>&1; then
    pass "swift: stand-ins build as module CoreML"
    if "$SWIFTC" -typecheck -I "$OUT" "$HERE/usage.swift" >"$OUT/swift-usage.log" 2>&1; then
        pass "swift: usage.swift type-checks against the stand-ins"
    else
        fail "swift: usage.swift does not type-check"; cat "$OUT/swift-usage.log"
    fi
else
    fail "swift: stand-ins do not build"; cat "$OUT/swift-module.log"
fi

# --- Objective-C ---------------------------------------------------------
RESOURCE_DIR="$("$CLANG" -print-resource-dir)"
objc_check() {  # objc_check TARGET FILE
    "$CLANG" -fsyntax-only -x objective-c -fobjc-arc -fblocks -target "$1" \
        -Werror=unguarded-availability -Werror=unguarded-availability-new \
        -nostdinc -isystem "$RESOURCE_DIR/include" -I "$SDK/include" "$2"
}

for target in arm64-apple-ios11.0 x86_64-apple-macos10.13 arm64-apple-tvos11.0; do
    if objc_check "$target" "$HERE/availability.m" >"$OUT/good.log" 2>&1; then
        pass "objc $target: availability.m compiles"
    else
        fail "objc $target: availability.m does not compile"; cat "$OUT/good.log"
    fi

    if objc_check "$target" "$HERE/availability_bad.m" >"$OUT/bad.log" 2>&1; then
        fail "objc $target: availability_bad.m compiled, but must be rejected"
    elif grep -q "is only available on" "$OUT/bad.log"; then
        pass "objc $target: availability_bad.m rejected for availability"
    else
        fail "objc $target: availability_bad.m failed, but not with an availability error"; cat "$OUT/bad.log"
    fi
done

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
