#!/usr/bin/env bash
# The Core ML models the test suite writes, for the scripts that check
# every one of them (apple_validator.sh, model_checksums.sh):
#
#   scripts/verify/test_models.sh WORK >LIST
#
# Runs swift test with its temporary files kept (TOOLKIT_KEEP_TEST_FILES=1)
# in WORK/tmp and its check folder in WORK/check (log: WORK/swift-test.log),
# then prints the Core ML models in both, NUL-separated
# (scripts/verify/core_ml_files.sh). Exits 1 when swift test failed (the
# list is printed all the same).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:?usage: scripts/verify/test_models.sh WORK}"
cd "$root"
rm -rf "$work" && mkdir -p "$work/tmp" "$work/check"
status=0
TOOLKIT_KEEP_TEST_FILES=1 TMPDIR="$work/tmp" MLMODEL_CHECK_DIR="$work/check" swift test --disable-swift-testing >"$work/swift-test.log" 2>&1 \
  || status=1
scripts/verify/core_ml_files.sh "$work/check" "$work/tmp"
exit "$status"
