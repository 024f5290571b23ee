#!/usr/bin/env bash
# The TensorFlow converter on the other networks its issue names: Keras'
# MobileNet, MobileNetV2, InceptionV3, ResNet50 and VGG16 (random weights,
# random batch-norm statistics), frozen as users freeze them. Not part of
# scripts/test (TensorFlow, ~4 GB of memory, a few minutes):
#   1. make_keras_applications.py writes each frozen graph with TensorFlow's
#      logits for one image,
#   2. each is converted with the image preprocessing Keras' preprocess_input
#      applies for it (2/255 and -1; or BGR with the ImageNet mean as biases),
#   3. the runtime runs it on the PNG and compare_outputs.py compares its
#      logits with TensorFlow's.
# Usage: scripts/verify/keras_applications.sh [WORK_DIR [MODEL ...]]   (after scripts/bootstrap --fixtures)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/tmp/keras_applications}"
shift || true
models=("${@:-mobilenet mobilenet_v2 inception_v3 resnet50 vgg16}")
read -r -a models <<< "${models[*]}"
python="$root/.venv/bin/python"
cd "$root"
swift build -c release >/dev/null
failed=0
for model in "${models[@]}"; do
  dir="$work/$model"
  [ -f "$dir/options.json" ] || "$python" scripts/verify/make_keras_applications.py "$work" "$model"
  mapfile -t options < <("$python" - "$dir/options.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
print("--input"); print(f"{o['input']}=1,{o['size']},{o['size']},3")
print("--output"); print(o["output"])
print("--image-input"); print(o["input"])
for key, flag in (("redBias", "--red-bias"), ("greenBias", "--green-bias"), ("blueBias", "--blue-bias"),
                  ("imageScale", "--image-scale")):
    print(flag); print(repr(o[key]))
if o["isBGR"]:
    print("--is-bgr")
PY
)
  .build/release/convert tensorflow "$dir/graph.pb" "${options[@]}" -o "$dir/model.mlmodel" | grep -E "^(Layers|Parameters):" | sed "s/^/$model: /"
  rm -rf "$dir/ours" && .build/release/predict "$dir/model.mlmodel" "$dir/input.png" --output-npy "$dir/ours" >/dev/null
  feature="$("$python" -c 'import json, re, sys; print(re.sub(r"\W", "_", json.load(open(sys.argv[1]))["output"].removesuffix(":0")))' "$dir/options.json")"
  "$python" scripts/verify/compare_outputs.py "$dir/ours/$feature.npy=$dir/output.npy" || failed=1
done
exit $failed
