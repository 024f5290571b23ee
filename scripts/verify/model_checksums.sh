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
# /tmp/keras_applications, ...), after those scripts ran. The test suite's
# models come from scripts/verify/test_models.sh (in MODEL_CHECKSUMS_WORK,
# default /tmp/model-checksums); prints "sha256  name" per Core ML file,
# sorted. Names are file names without the tests' random folder names.
# It runs swift test only: scripts/test's checks after the suite
# (check_mlmodels.py's expectations for coremltools' decoding, the quick
# start, fuzz-smoke) are not run, so a change to what is written needs
# scripts/test too.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
work="${MODEL_CHECKSUMS_WORK:-/tmp/model-checksums}"
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
scripts/verify/test_models.sh "$work" >"$list" || { echo "model-checksums: swift test failed (see $work/swift-test.log)" >&2; exit 1; }
[ $# -gt 0 ] && scripts/verify/core_ml_files.sh "$@" >>"$list"
while IFS= read -r -d '' file; do
  printf '%s  %s\n' "$(sha256sum <"$file" | cut -c1-64)" "$(basename "$file")"
done <"$list" | LC_ALL=C sort
