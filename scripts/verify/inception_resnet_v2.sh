#!/usr/bin/env bash
# The TensorFlow converter's full-size proof (not part of scripts/test: it
# needs TensorFlow, ~4 GB of memory and a few minutes):
#   1. builds Keras' InceptionResNetV2(weights=None) with a fixed seed and
#      freezes it (~224 MB .pb) with TensorFlow's own output for one input,
#   2. converts it as the tfcoreml tutorial does (image input, biases -1,
#      scale 2/255, 1000 labels) and checks the file with coremltools,
#   3. converts it again exposing the logits and two intermediate maps, runs
#      it with the runtime, and compares each with TensorFlow:
#      |ours - ref| <= 1e-4 * max(1, |ref|), and also relative to each
#      tensor's largest value (random weights give a near-uniform softmax),
#   4. converts that again as ML Program packages (float32 and float16
#      compute) and compares them with TensorFlow the same way (float16: the
#      norm-wise bound k * 2^-11 * max(1, max |ref|), k its operations).
# Usage: scripts/verify/inception_resnet_v2.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/inception_resnet_v2}"
python="$root/.venv/bin/python"
mkdir -p "$work"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/inception_resnet_v2.pb" ] || "$python" scripts/bench/make_inception_resnet_v2.py "$work"
"$python" - "$work" <<'PY'
import sys, numpy as np, cv2
work = sys.argv[1]
x = np.load(f"{work}/input.npy")
cv2.imwrite(f"{work}/input.png", cv2.cvtColor(x.astype(np.uint8), cv2.COLOR_RGB2BGR))
PY
common=(--input-shape input:0=1,299,299,3 --image-input input:0 --red-bias -1 --green-bias -1 --blue-bias -1 --image-scale 0.00784313725490196)
mkdir -p "$work/check"
.build/release/coreml-convert tensorflow "$work/inception_resnet_v2.pb" "${common[@]}" --output-feature-name Identity:0 \
  --class-labels "$work/imagenet_slim_labels.txt" -o "$work/check/InceptionResNetV2.mlmodel" >/dev/null
cat > "$work/check/InceptionResNetV2.expect.json" <<'JSON'
{"specificationVersion": 1, "kind": "neuralNetworkClassifier",
 "inputs": [{"name": "input", "type": "image", "width": 299, "height": 299, "colorSpace": "RGB"}],
 "outputs": [{"name": "classLabelProbs", "type": "dictionary", "keyType": "string"}, {"name": "classLabel", "type": "string"}],
 "preprocessing": [{"featureName": "input", "scaler": {"channelScale": 0.00784313725490196, "redBias": -1, "greenBias": -1, "blueBias": -1}}]}
JSON
"$python" scripts/check_mlmodels.py "$work/check"
p=inception_resnet_v2_1
.build/release/coreml-convert tensorflow "$work/inception_resnet_v2.pb" "${common[@]}" --output-feature-name Identity:0 \
  --output-feature-name $p/predictions_1/BiasAdd:0 --output-feature-name $p/avg_pool_1/Mean:0 --output-feature-name $p/block35_1_ac_1/Relu:0 \
  -o "$work/outputs.mlmodel" >/dev/null
rm -rf "$work/ours" && .build/release/coreml-predict "$work/outputs.mlmodel" "$work/input.png" --output-npy "$work/ours" --benchmark 3 >/dev/null
o="$work/ours"
"$python" scripts/verify/compare_outputs.py "$o/Identity.npy=$work/output.npy" \
  "$o/${p}_predictions_1_BiasAdd.npy=$work/output_logits.npy" "$o/${p}_avg_pool_1_Mean.npy=$work/output_avg_pool.npy" \
  "$o/${p}_block35_1_ac_1_Relu.npy=$work/output_block35_1.npy@35,35,320"
# 4. The same conversion as ML Program packages (issue 36), computing in float32 and in float16, run by the
#    runtime and compared with TensorFlow as in 3; float16 by the norm-wise bound
#    max |ours - ref| <= k * 2^-11 * max(1, max |ref|), k the program's operations other than const.
for precision in float32 float16; do
  package="$work/outputs_$precision.mlpackage"
  .build/release/coreml-convert tensorflow "$work/inception_resnet_v2.pb" "${common[@]}" --output-feature-name Identity:0 \
    --output-feature-name $p/predictions_1/BiasAdd:0 --output-feature-name $p/avg_pool_1/Mean:0 --output-feature-name $p/block35_1_ac_1/Relu:0 \
    --convert-to mlprogram --compute-precision "$precision" -q -o "$package"
  rm -rf "$work/ours_$precision" && .build/release/coreml-predict "$package" "$work/input.png" --output-npy "$work/ours_$precision" >/dev/null
  tolerance=()
  if [ "$precision" = float16 ]; then
    tolerance=(--float16-bound "$(.build/release/coreml-inspect "$package" --json | "$python" -c "
import json, sys
counts = json.load(sys.stdin)['program']['operationCounts']
print(sum(c['count'] for c in counts if c['type'] != 'const') * 2.0 ** -11)")")
  fi
  echo "-- ML Program, --compute-precision $precision ${tolerance[*]}"
  o="$work/ours_$precision"
  "$python" scripts/verify/compare_outputs.py "${tolerance[@]}" "$o/Identity.npy=$work/output.npy" \
    "$o/${p}_predictions_1_BiasAdd.npy=$work/output_logits.npy" "$o/${p}_avg_pool_1_Mean.npy=$work/output_avg_pool.npy" \
    "$o/${p}_block35_1_ac_1_Relu.npy=$work/output_block35_1.npy@35,35,320"
done
