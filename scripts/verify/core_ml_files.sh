#!/usr/bin/env bash
# Every Core ML model under the given folders, NUL-separated: each *.mlmodel
# that coreml-inspect reads as one (by content: a test may give another
# file that name), but for the files the malformed-input tests make on
# purpose (bad.mlmodel: corrupted bytes; hole.mlmodel: 2e9 weights said
# over a sparse hole, SparseFileBoundedReadTests; unknown.mlmodel: a layer type the
# toolkit does not know). Builds the debug programs if needed.
#   scripts/verify/core_ml_files.sh FOLDER...
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build >/dev/null 2>&1
inspect="$(swift build --show-bin-path)/coreml-inspect"
find "$@" -name '*.mlmodel' -type f ! -name bad.mlmodel ! -name unknown.mlmodel ! -name hole.mlmodel -print0 |
  while IFS= read -r -d '' file; do
    "$inspect" "$file" 2>/dev/null | grep -q '^Format: *Core ML model' && printf '%s\0' "$file"
  done
