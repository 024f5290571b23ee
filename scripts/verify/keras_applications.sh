#!/usr/bin/env bash
# The TensorFlow and Keras converters on the other networks the TensorFlow
# issue names: Keras' MobileNet, MobileNetV2, InceptionV3, ResNet50 and VGG16
# (random weights, random batch-norm statistics), frozen as users freeze
# them and saved as .h5. Not part of scripts/test (TensorFlow, ~4 GB of
# memory, a few minutes):
#   1. make_keras_applications.py writes each frozen graph and .h5 with
#      TensorFlow's logits for one image,
#   2. each is converted from both files with the image preprocessing Keras'
#      preprocess_input applies for it (2/255 and -1; or BGR with the
#      ImageNet mean as biases),
#   3. the runtime runs both on the PNG and compare_outputs.py compares
#      their logits with TensorFlow's.
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
for key, flag in (("redBias", "--red-bias"), ("greenBias", "--green-bias"), ("blueBias", "--blue-bias"),
                  ("imageScale", "--image-scale")):
    print(flag); print(repr(o[key]))
if o["isBGR"]:
    print("--is-bgr")
PY
)
  graph=(--input input:0=1,$("$python" -c 'import json, sys; s = json.load(open(sys.argv[1]))["size"]; print(f"{s},{s},3")' "$dir/options.json"))
  for source in tensorflow keras; do
    if [ $source = tensorflow ]; then
      .build/release/convert tensorflow "$dir/graph.pb" "${graph[@]}" --image-input input:0 "${options[@]}" -o "$dir/$source.mlmodel"
    else
      # Keras 3 writes input_layers as [name, 0, 0] for one input, Keras 2 as [[name, 0, 0]].
      input="$("$python" -c 'import h5py, json, sys; first = json.loads(h5py.File(sys.argv[1])["/"].attrs["model_config"])["config"]["input_layers"][0]; print(first[0] if isinstance(first, list) else first)' "$dir/model.h5")"
      .build/release/convert keras "$dir/model.h5" --image-input "$input" "${options[@]}" -o "$dir/$source.mlmodel"
    fi | grep -E "^(Layers|Parameters):" | sed "s/^/$model from $source: /"
    rm -rf "$dir/ours-$source" && .build/release/predict "$dir/$source.mlmodel" "$dir/input.png" --output-npy "$dir/ours-$source" >/dev/null
    outputs=("$dir/ours-$source"/*.npy)
    [ ${#outputs[@]} = 1 ] || { echo "$model from $source: ${#outputs[@]} outputs, expected 1"; failed=1; continue; }
    "$python" scripts/verify/compare_outputs.py "${outputs[0]}=$dir/output.npy" || failed=1
  done
done
exit $failed
