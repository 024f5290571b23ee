#!/usr/bin/env bash
# The tfcoreml tutorial's case end to end, on a graph written the way
# TF-slim's inception_resnet_v2_2016_08_30_frozen.pb is (unfused batch norms,
# weights read through Identity, residual scales as Mul, Shape/StridedSlice/
# Pack flatten, an unused auxiliary head, 1001 classes): see
# make_slim_inception_resnet_v2.py. Not part of scripts/test (TensorFlow,
# ~3 GB of memory, about a minute):
#   1. writes the graph with TensorFlow's outputs for one input,
#   2. converts it with the tutorial's options (image input, biases -1,
#      scale 2/255, 1001 labels, output InceptionResnetV2/Logits/Predictions)
#      and checks the file with coremltools,
#   3. converts it again exposing the logits and the first block35, runs it
#      with the runtime on the PNG of the input, and compares each output with
#      TensorFlow's (compare_outputs.py).
# Usage: scripts/verify/slim_inception_resnet_v2.sh [WORK_DIR]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/slim_inception_resnet_v2}"
python="$root/.venv/bin/python"
mkdir -p "$work/check"
cd "$root"
swift build -c release >/dev/null
[ -f "$work/slim_inception_resnet_v2.pb" ] || "$python" scripts/verify/make_slim_inception_resnet_v2.py "$work"
common=(--input-shape input:0=1,299,299,3 --image-input input:0 --red-bias -1 --green-bias -1 --blue-bias -1 --image-scale 0.00784313725490196)
.build/release/coreml-convert tensorflow "$work/slim_inception_resnet_v2.pb" "${common[@]}" \
  --output-feature-name InceptionResnetV2/Logits/Predictions:0 --class-labels "$work/labels.txt" -o "$work/check/InceptionResnetV2.mlmodel"
cat > "$work/check/InceptionResnetV2.expect.json" <<'JSON'
{"specificationVersion": 1, "kind": "neuralNetworkClassifier",
 "inputs": [{"name": "input", "type": "image", "width": 299, "height": 299, "colorSpace": "RGB"}],
 "outputs": [{"name": "classLabelProbs", "type": "dictionary", "keyType": "string"}, {"name": "classLabel", "type": "string"}],
 "preprocessing": [{"featureName": "input", "scaler": {"channelScale": 0.00784313725490196, "redBias": -1, "greenBias": -1, "blueBias": -1}}]}
JSON
"$python" scripts/check_mlmodels.py "$work/check"
s=InceptionResnetV2
.build/release/coreml-convert tensorflow "$work/slim_inception_resnet_v2.pb" "${common[@]}" --output-feature-name $s/Logits/Predictions:0 \
  --output-feature-name $s/Logits/Logits/BiasAdd:0 --output-feature-name $s/Repeat/block35_1/Relu:0 -o "$work/outputs.mlmodel" >/dev/null
rm -rf "$work/ours" && .build/release/coreml-predict "$work/outputs.mlmodel" "$work/input.png" --output-npy "$work/ours" >/dev/null
o="$work/ours"
"$python" scripts/verify/compare_outputs.py "$o/${s}_Logits_Predictions.npy=$work/output.npy" \
  "$o/${s}_Logits_Logits_BiasAdd.npy=$work/output_logits.npy" "$o/${s}_Repeat_block35_1_Relu.npy=$work/output_block35_1.npy@35,35,320"
