#!/usr/bin/env bash
# Core ML's own validator on every .mlmodel the toolkit writes. Core ML runs
# this validation when an app compiles or loads a model; coremltools on Linux
# cannot (its wheel lacks the library), so scripts/check_mlmodels.py checks
# fields only. Not part of scripts/test: the validator is Apple's C++
# (apple/coremltools, mlmodel/src, CoreML::Model::validate), which CI cannot
# fetch and this repository does not carry.
#
# Usage: scripts/verify/apple_validator.sh VALIDATOR [FOLDER ...]
#   VALIDATOR  a program built outside this repository from Apple's source
#              that takes .mlmodel paths and prints one line per file:
#              "OK <file> ..." or "INVALID <file>: <message>". Build it with
#              scripts/verify/build_apple_validator.sh COREMLTOOLS_SRC OUTDIR
#              (it is OUTDIR/bin/validate-mlmodel).
#   FOLDER     validate every Core ML model under these folders (the
#              verify scripts' work folders, e.g. /tmp/keras_applications).
#   Without folders: validates every model the test suite writes
#   (scripts/verify/test_models.sh, in APPLE_VALIDATOR_WORK, default
#   /tmp/apple-validator).
# Ends with "apple-validator: N valid, M invalid"; exits 1 if any is invalid.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
validator="${1:?usage: scripts/verify/apple_validator.sh VALIDATOR [FOLDER ...]}"
shift
[ -x "$validator" ] || { echo "apple-validator: $validator is not an executable" >&2; exit 2; }
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
cd "$root"

if [ $# -gt 0 ]; then
  scripts/verify/core_ml_files.sh "$@" >"$list"
else
  work="${APPLE_VALIDATOR_WORK:-/tmp/apple-validator}"
  echo "== swift test, models left in $work"
  scripts/verify/test_models.sh "$work" >"$list" \
    || echo "apple-validator: swift test failed (see $work/swift-test.log); validating what it wrote"
fi

results="$(xargs -0 -r "$validator" <"$list" 2>/dev/null)"
valid="$(grep -c '^OK ' <<<"$results")"
invalid="$(grep -c '^INVALID ' <<<"$results")"
grep -v '^OK ' <<<"$results" | grep -v '^$'
echo "apple-validator: $valid valid, $invalid invalid"
[ "$invalid" -eq 0 ] && [ "$valid" -gt 0 ]
