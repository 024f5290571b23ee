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
#              "OK <file> ..." or "INVALID <file>: <message>".
#   FOLDER     validate every regular *.mlmodel under these folders (the
#              verify scripts' work folders, e.g. /tmp/keras_applications).
#   Without folders: runs swift test with TMPDIR and MLMODEL_CHECK_DIR in a
#   work folder (and TOOLKIT_KEEP_TEST_FILES=1: tests keep their temporary
#   files), then validates every model the tests wrote: the check
#   folder, and every other .mlmodel they left that coreml-inspect reads as
#   a Core ML model, but for the files the malformed-input tests
#   make on purpose (bad.mlmodel: corrupted bytes; unknown.mlmodel: a layer
#   type the toolkit does not know).
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
  find "$@" -name '*.mlmodel' -type f -print0 >"$list"
else
  work="${APPLE_VALIDATOR_WORK:-/tmp/apple-validator}"
  rm -rf "$work" && mkdir -p "$work/tmp" "$work/check"
  echo "== swift test, models left in $work"
  TOOLKIT_KEEP_TEST_FILES=1 TMPDIR="$work/tmp" MLMODEL_CHECK_DIR="$work/check" swift test --disable-swift-testing >"$work/swift-test.log" 2>&1 \
    || echo "apple-validator: swift test failed (see $work/swift-test.log); validating what it wrote"
  swift build >/dev/null 2>&1
  inspect="$(swift build --show-bin-path)/coreml-inspect"
  {
    find "$work/check" -name '*.mlmodel' -type f -print0
    # Core ML files (by content: a test may name another file .mlmodel) that read back.
    find "$work/tmp" -name '*.mlmodel' -type f ! -name bad.mlmodel ! -name unknown.mlmodel -print0 |
      while IFS= read -r -d '' file; do
        "$inspect" "$file" 2>/dev/null | grep -q '^Format: *Core ML model' && printf '%s\0' "$file"
      done
  } >"$list"
fi

results="$(xargs -0 -r "$validator" <"$list" 2>/dev/null)"
valid="$(grep -c '^OK ' <<<"$results")"
invalid="$(grep -c '^INVALID ' <<<"$results")"
grep -v '^OK ' <<<"$results" | grep -v '^$'
echo "apple-validator: $valid valid, $invalid invalid"
[ "$invalid" -eq 0 ] && [ "$valid" -gt 0 ]
