#!/usr/bin/env bash
# Issue 36's structure comparison: this toolkit's ML Programs beside
# coremltools' for the same three sources (a small tf_keras CNN, tf_keras
# MobileNet alpha 0.25 at 128x128, torchvision's resnet18; random seeded
# weights, random batch-norm statistics and Keras biases), both written for
# iOS 15 computing in float32:
#   theirs  ct.convert(model, convert_to="mlprogram",
#           minimum_deployment_target=ct.target.iOS15,
#           compute_precision=ct.precision.FLOAT32) of the tf_keras model, or
#           of torch.jit.trace of the torch model;
#   ours    coreml-convert keras model.h5 / onnx model.onnx (torch.onnx.export,
#           opset 17) --convert-to mlprogram --compute-precision float32.
# mlprogram_structure.py counts each program's operations by type (const
# included; float constants apart from parameter ones) and prints the two
# side by side with their totals, weight bytes, inputs and outputs; it exits
# 1 if the outputs differ in shape once sizes of 1 are dropped. Each
# program's operations are listed in WORK_DIR/NAME/{theirs,ours}_ops.txt.
# Of ours it proves no values (scripts/verify/mlprogram.sh does); theirs is
# predicted by coreml-predict against the framework (tf_keras, onnxruntime on
# the torch model's export), 1e-4 * max(1, |ref|): a program it did not write.
# Pinned (checked, exit 2 otherwise): coremltools 9.0, tensorflow-cpu
# 2.21.0 with tf-keras 2.21.0 (coremltools 9 converts tf.keras (Keras 2)
# models, not Keras 3 ones), torch 2.13.0+cpu, torchvision 0.29.2, numpy
# 2.4.6 (scripts/bootstrap --fixtures). Not part of scripts/test; 45-60 s
# on this busy 2-core machine, 140 MB in WORK_DIR.
# Usage: scripts/verify/mlprogram_structure.sh [WORK_DIR] [COREML_CONVERT]
#   WORK_DIR       default /tmp/mlprogram_structure
#   COREML_CONVERT a built coreml-convert (default: swift build -c release's)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/mlprogram_structure}"
convert="${2:-}"
cd "$root"
if [ -z "$convert" ]; then
  swift build -c release >/dev/null
  convert="$(swift build -c release --show-bin-path)/coreml-convert"
fi
# coremltools' progress bars off; its version warnings dropped from stderr; errors still show.
TQDM_DISABLE=1 "$root/.venv/bin/python" scripts/verify/mlprogram_structure.py "$work" --convert "$convert" 2> >(grep -v -E \
  "^(I0000|WARNING|Failed to load|Running |Converting )|has not been tested|rebuild TensorFlow|To enable the following|scikit-learn version|legacy|saving_api|UserWarning|warnings.warn|torch.onnx.export" >&2 || true)
