#!/usr/bin/env bash
# keras.applications through TensorFlow Lite (issue 37): MobileNetV2,
# MobileNetV3 Small and Large, EfficientNetB0, an EfficientNet-Lite0 built
# from keras layers (ReLU6, no squeeze-and-excite) and ResNet50, each written
# by TFLiteConverter as float and as full-integer int8 (representative
# dataset; float input and output), converted by
#   coreml-convert tflite MODEL.tflite -o MODEL.mlmodel
# (release build, under /usr/bin/time -v: seconds and peak memory), run by
# coreml-predict on five pictures and compared with LiteRT (ai-edge-litert,
# pinned in scripts/requirements-fixtures.txt) on the same file:
#   float: |ours - ref| <= 1e-4 * max(1, |ref|) for every logit, top-1 the same;
#   int8:  the same against LiteRT on the file's float twin (its own int8
#          weights dequantized, float activations: tflite_dequantized.py);
#          against LiteRT's int8 kernels (which round every activation) the
#          notes give the distance, LiteRT's own float-vs-int8 distance and the top-1.
# Seeded weights, batch norms set from their inputs' statistics (see
# tflite_keras_models.py); nothing is downloaded. Not part of scripts/test:
# TensorFlow and LiteRT; 8 minutes on 2 quiet cores (20 on loaded ones); 460 MB in WORK.
# Usage: scripts/verify/tflite_keras_apps.sh [WORK [MODEL ...]]   (after scripts/bootstrap --fixtures)
#   WORK: an empty or new folder (default: a fresh mktemp folder, kept).
# Prints the COVERAGE.md table (also in WORK/table.md); exits 1 if any check fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/tflite_keras_apps.XXXXXX")}"
shift || true
mkdir -p "$work"
[ -z "$(ls -A "$work")" ] || { echo "tflite_keras_apps.sh: $work is not empty" >&2; exit 64; }
python="$root/.venv/bin/python"
swift build -c release --package-path "$root" --product coreml-convert >/dev/null
swift build -c release --package-path "$root" --product coreml-predict >/dev/null
echo "work folder: $work"
exec "$python" "$root/scripts/verify/tflite_keras_apps.py" "$work" "$@" --bin "$root/.build/release" --kind float,int8 \
  --markdown "$work/table.md"
