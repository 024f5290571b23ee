#!/usr/bin/env bash
# Builds milblob_dump (scripts/verify/milblob_dump.cpp) against Core ML's own
# MIL blob reader (MILBlob::StorageReader) from an apple/coremltools checkout:
# the program the ML Program checks read every weight file with.
# Usage: scripts/verify/build_milblob_dump.sh COREMLTOOLS_SRC OUTPUT
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source_dir="${1:?usage: build_milblob_dump.sh COREMLTOOLS_SRC OUTPUT}"
output="${2:?usage: build_milblob_dump.sh COREMLTOOLS_SRC OUTPUT}"
milblob="$source_dir/mlmodel/src"
[ -f "$milblob/MILBlob/Blob/StorageReader.cpp" ] || { echo "build_milblob_dump: no MILBlob sources in $milblob" >&2; exit 2; }
g++ -std=c++17 -O1 -I"$milblob" -I"$source_dir/deps/FP16/include" -o "$output" "$root/scripts/verify/milblob_dump.cpp" \
  "$milblob/MILBlob/Blob/StorageReader.cpp" "$milblob/MILBlob/Blob/MMapFileReader.cpp" "$milblob/MILBlob/Blob/MMapFileReaderFactory.cpp" \
  "$milblob/MILBlob/Fp16.cpp" "$milblob/MILBlob/Fp8.cpp" "$milblob/MILBlob/SubByteTypes.cpp"
