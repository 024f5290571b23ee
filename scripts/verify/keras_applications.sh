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
#      their logits with TensorFlow's;
#   4. for MobileNet and MobileNetV2 (ReLU6: a clip layer for iOS 13, four
#      older layers below), each is also converted with an array input (fed
#      the image preprocessed in numpy) and for iOS 13 (--minimum-deployment-target),
#      and compared the same way. scripts/verify/apple_validator.sh
#      VALIDATOR WORK_DIR then checks every file with Core ML's validator.
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
  graph=(--input-shape input:0=1,$("$python" -c 'import json, sys; s = json.load(open(sys.argv[1]))["size"]; print(f"{s},{s},3")' "$dir/options.json"))
  # Keras 3 writes input_layers as [name, 0, 0] for one input, Keras 2 as [[name, 0, 0]].
  keras_input="$("$python" -c 'import h5py, json, sys; first = json.loads(h5py.File(sys.argv[1])["/"].attrs["model_config"])["config"]["input_layers"][0]; print(first[0] if isinstance(first, list) else first)' "$dir/model.h5")"
  variants=(image)
  case "$model" in mobilenet|mobilenet_v2) variants+=(array ios13) ;; esac
  # The image as the network sees it after the preprocessing: [C, H, W], in BGR for caffe-mode models.
  "$python" - "$dir/options.json" "$dir/input.png" "$dir/input_array.npy" <<'PY'
import json, sys
import numpy as np
from PIL import Image
o = json.load(open(sys.argv[1]))
x = np.asarray(Image.open(sys.argv[2]).convert("RGB"), dtype=np.float64)
bias = np.array([o["redBias"], o["greenBias"], o["blueBias"]])
if o["isBGR"]:
    x, bias = x[..., ::-1], bias[::-1]
np.save(sys.argv[3], np.transpose(x * o["imageScale"] + bias, (2, 0, 1)).astype(np.float32))
PY
  for source in tensorflow keras; do
    for variant in "${variants[@]}"; do
      name="$source" input=() feed=("$dir/input.png") preprocessing=("${options[@]}") target=()
      [ $source = tensorflow ] && model_input=input:0 || model_input="$keras_input"
      [ $source = tensorflow ] && model_feature=input || model_feature="$keras_input"
      case "$variant" in
        image) input=(--image-input "$model_input") ;;
        array) name="$source-array" feed=(--input "$model_feature=$dir/input_array.npy") preprocessing=() ;;
        ios13) name="$source-ios13" input=(--image-input "$model_input") target=(--minimum-deployment-target iOS13) ;;
      esac
      if [ $source = tensorflow ]; then
        .build/release/coreml-convert tensorflow "$dir/graph.pb" "${graph[@]}" "${input[@]}" "${preprocessing[@]}" "${target[@]}" -o "$dir/$name.mlmodel"
      else
        .build/release/coreml-convert keras "$dir/model.h5" "${input[@]}" "${preprocessing[@]}" "${target[@]}" -o "$dir/$name.mlmodel"
      fi | grep -E "^(Format|Layers|Parameters):" | sed "s/^/$model from $name: /"
      rm -rf "$dir/ours-$name" && .build/release/coreml-predict "$dir/$name.mlmodel" "${feed[@]}" --output-npy "$dir/ours-$name" >/dev/null
      outputs=("$dir/ours-$name"/*.npy)
      [ ${#outputs[@]} = 1 ] || { echo "$model from $name: ${#outputs[@]} outputs, expected 1"; failed=1; continue; }
      "$python" scripts/verify/compare_outputs.py "${outputs[0]}=$dir/output.npy" || failed=1
    done
  done
done
exit $failed
