#!/usr/bin/env bash
# Checksums of every Core ML model the test suite writes, and of those in
# the given verify work folders: the proof that a restructuring changed no
# output byte. Run it before and after, and diff the two lists:
#
#   scripts/verify/model_checksums.sh [FOLDER ...] >before.txt
#   ... change the code ...
#   scripts/verify/model_checksums.sh [FOLDER ...] >after.txt && diff before.txt after.txt
#
# FOLDER: the work folders of scripts/verify/*.sh (/tmp/age_net_full,
# /tmp/keras_applications, ...), after those scripts ran. Runs swift test with
# TOOLKIT_KEEP_TEST_FILES=1 in a work folder (MODEL_CHECKSUMS_WORK, default
# /tmp/model-checksums), then prints "sha256  name" per Core ML file
# (recognised by coreml-inspect, as scripts/verify/apple_validator.sh does),
# sorted. Names are file names without the tests' random folder names.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
work="${MODEL_CHECKSUMS_WORK:-/tmp/model-checksums}"
rm -rf "$work" && mkdir -p "$work/tmp" "$work/check"
TOOLKIT_KEEP_TEST_FILES=1 TMPDIR="$work/tmp" MLMODEL_CHECK_DIR="$work/check" swift test --disable-swift-testing >"$work/swift-test.log" 2>&1 \
  || { echo "model-checksums: swift test failed (see $work/swift-test.log)" >&2; exit 1; }
swift build >/dev/null 2>&1
inspect="$(swift build --show-bin-path)/coreml-inspect"
find "$work/check" "$work/tmp" "$@" -name '*.mlmodel' -type f -print0 |
  while IFS= read -r -d '' file; do
    "$inspect" "$file" 2>/dev/null | grep -q '^Format: *Core ML model' || continue
    printf '%s  %s\n' "$(sha256sum <"$file" | cut -c1-64)" "$(basename "$file")"
  done | LC_ALL=C sort
