#!/usr/bin/env bash
# Issue 36's first slice, checked by readers that are not ours: models of the
# default suite (and age_net at full size) converted with
#   coreml-convert ... --convert-to mlprogram --compute-precision float32|float16 -o M.mlpackage
# and, for each package (float16: tolerances as run_mlprogram_torch.py states them):
#   1. check_mlprogram.py: coremltools 9 opens it (MLModel(path,
#      skip_model_load=True)); its MIL-proto loader builds its own program with
#      every op's type inference, and each declared output type and shape
#      agrees; Core ML's MIL blob reader (MILBlob::StorageReader, compiled here
#      from COREMLTOOLS_SRC as milblob_dump) reads every weight back identical,
#      and every weight is bit-identical to the NeuralNetwork .mlmodel's from
#      the same conversion;
#   2. Apple's validator (VALIDATOR, built by build_apple_validator.sh) accepts
#      Data/com.apple.CoreML/model.mlmodel (given a VALIDATOR only);
#   3. run_mlprogram_torch.py: the program as coremltools loaded it, run op by
#      op on PyTorch, matches the source framework's output in the fixtures
#      (OpenCV dnn for Caffe, Keras) to 1e-4 * max(1, |ref|);
#   4. coreml-predict runs the package (read back into the IR by
#      MLProgramReader): its output matches the framework's and the
#      NeuralNetwork .mlmodel's (compare_outputs.py).
# Not part of scripts/test: it needs a coremltools source checkout (MILBlob),
# g++ and torch. About a minute.
# Usage: scripts/verify/mlprogram.sh [COREMLTOOLS_SRC] [VALIDATOR] [WORK_DIR]
#   COREMLTOOLS_SRC  an apple/coremltools checkout (default /tmp/cmt)
#   VALIDATOR        validate-mlmodel (default /tmp/validator/bin/validate-mlmodel, skipped if absent)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source_dir="${1:-/tmp/cmt}"
validator="${2:-/tmp/validator/bin/validate-mlmodel}"
work="${3:-/tmp/mlprogram_verify}"
python="$root/.venv/bin/python"
fixtures="$root/Tests/Fixtures"
cd "$root"
mkdir -p "$work"

source scripts/verify/mlprogram_checks.sh
prepare_package_checks "$source_dir"
swift build >/dev/null
bin="$(swift build --show-bin-path)"
[ -f "$work/agefull/output_prob.npy" ] || "$python" scripts/fixtures/make_caffe_fixtures.py --full-size "$work/agefull" >/dev/null

failures=0
# check NAME INPUT REFERENCE [--bgr] -- CONVERT ARGUMENTS...
check() {
  local name="$1" input="$2" reference="$3" bgr=""
  shift 3
  [ "$1" = "--bgr" ] && { bgr="--bgr"; shift; }
  shift  # --
  echo "== $name"
  "$bin/coreml-convert" "$@" -q -o "$work/$name.mlmodel"
  # The given input for coreml-predict. A Keras fixture's HWC pixels: a PNG when they are whole numbers, else the
  # [C, H, W] values (the model has no preprocessing then).
  local given=("$input")
  if [ "${input%.npy}" != "$input" ]; then
    given=($("$python" - "$input" "$work/$name" "$work/$name.mlmodel" <<'PY'
import sys, numpy as np
from PIL import Image
import coremltools as ct
x = np.load(sys.argv[1])
if (x == np.round(x)).all() and x.min() >= 0 and x.max() <= 255:
    Image.fromarray(x.astype(np.uint8)).save(sys.argv[2] + ".png")
    print(sys.argv[2] + ".png")
else:
    np.save(sys.argv[2] + ".chw.npy", np.ascontiguousarray(x.transpose(2, 0, 1)).astype(np.float32))
    print("--input", ct.utils.load_spec(sys.argv[3]).description.input[0].name + "=" + sys.argv[2] + ".chw.npy")
PY
    ))
  fi
  rm -rf "$work/$name.mlmodel_out"
  "$bin/coreml-predict" "$work/$name.mlmodel" "${given[@]}" --output-npy "$work/$name.mlmodel_out" >/dev/null
  local precision
  for precision in float32 float16; do
    local stem="$work/$name.$precision"
    local package="$stem.mlpackage"
    echo "-- --compute-precision $precision"
    "$bin/coreml-convert" "$@" --convert-to mlprogram --compute-precision "$precision" -q -o "$package"
    # (A failed check is counted, and the next ones still run.)
    check_package "$package" "$stem" "$work/$name.mlmodel"
    "$python" scripts/verify/run_mlprogram_torch.py "$package" "$input" "$reference" $bgr > "$stem.torch" 2>&1 \
      || failures=$((failures + 1))
    quiet < "$stem.torch"
    # coreml-predict reads the package back into the IR (MLProgramReader) and runs it: against the framework and the .mlmodel,
    # at 1e-4, or in float16 at run_mlprogram_torch.py's norm-wise bound k * 2**-11 * max(1, max |ref|) (k: the operations
    # with float16 outputs).
    local tolerance=()
    if [ "$precision" = float16 ]; then
      tolerance=(--float16-bound "$("$python" -c "
import sys, coremltools as ct
spec = ct.utils.load_spec(sys.argv[1])
block = spec.mlProgram.functions['main'].block_specializations['CoreML5']
print(sum(op.type != 'const' and op.outputs[0].type.tensorType.dataType == 10 for op in block.operations) * 2.0**-11)" "$package" 2>/dev/null)")
    fi
    rm -rf "$stem.package_out"
    "$bin/coreml-predict" "$package" "${given[@]}" --output-npy "$stem.package_out" >/dev/null
    local output
    output="$(cd "$stem.package_out" && ls *.npy | head -1)"
    "$python" scripts/verify/compare_outputs.py "${tolerance[@]}" "$stem.package_out/$output=$reference" \
      "$stem.package_out/$output=$work/$name.mlmodel_out/$output" || failures=$((failures + 1))
  done
}

age_biases=(--red-bias -114.895847746 --green-bias -87.7689143744 --blue-bias -78.4263377603)
check age_net_full "$work/agefull/face.png" "$work/agefull/output_prob.npy" --bgr -- \
  caffe "$work/agefull/deploy_age.prototxt" "$work/agefull/age_net.caffemodel" --image-input data --is-bgr "${age_biases[@]}" \
  --class-labels "$work/agefull/age_labels.txt"
age="$fixtures/caffe/age_net_v1"
check age_net_v1 "$age/input.png" "$age/output_prob.npy" --bgr -- \
  caffe "$age/deploy.prototxt" "$age/weights.caffemodel" --image-input data --is-bgr "${age_biases[@]}" --class-labels "$age/labels.txt"
resnet="$fixtures/caffe/resnet_bn"
check resnet_bn "$resnet/input.png" "$resnet/output_prob.npy" -- \
  caffe "$resnet/deploy.prototxt" "$resnet/weights.caffemodel" --image-input data --image-scale 0.00392156862745098 \
  --red-bias -0.485 --green-bias -0.456 --blue-bias -0.406
keras="$fixtures/keras/sequential_classifier"
check keras_sequential "$keras/input.npy" "$keras/output.npy" -- \
  keras "$keras/model.h5" --image-input image --image-scale 0.00392156862745098 --class-labels "$keras/labels.txt"
separable="$fixtures/keras/functional_separable"
check keras_separable "$separable/input.npy" "$separable/output.npy" -- keras "$separable/model.h5" --image-input input

# Upsampling (bilinear, half-pixel centers); Keras's [H, W, C] output made [C, H, W] as the program gives it.
bilinear="$fixtures/keras/bilinear_upsampling"
"$python" -c "import sys, numpy as np; np.save(sys.argv[2], np.load(sys.argv[1]).transpose(2, 0, 1))" "$bilinear/output.npy" "$work/bilinear_chw.npy"
check keras_bilinear "$bilinear/input.npy" "$work/bilinear_chw.npy" -- keras "$bilinear/model.h5"

# Padding, cropping, permute, maximum, minimum, average and deconvolution: a Keras model made here (random weights), Keras's output the reference.
"$python" - "$work/layout" <<'PY' 2>/dev/null | quiet
import os, sys
import numpy as np
import keras
from keras import layers
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
keras.utils.set_random_seed(36)
x = keras.Input((8, 8, 3), name="input")
a = layers.Conv2D(4, 3, padding="same", name="conv_a")(x)
b = layers.Conv2D(4, 1, name="conv_b")(x)
c = layers.Cropping2D(((2, 1), (1, 2)), name="crop")(layers.ZeroPadding2D(((1, 2), (2, 1)), name="zeropad")(a))
high = layers.Maximum(name="maximum")([a, b])
low = layers.Minimum(name="minimum")([a, c])
mean = layers.Permute((2, 1, 3), name="permute")(layers.Average(name="average")([a, b, c]))
up = layers.Conv2DTranspose(4, 3, strides=2, padding="same", name="deconv_same")(a)
valid = layers.Conv2DTranspose(3, 2, padding="valid", name="deconv_valid")(b)
down = layers.MaxPooling2D(2, name="pool")(layers.Conv2D(4, 3, padding="same", name="conv_up")(up))
y = layers.Conv2D(3, 1, name="head")(layers.Concatenate(name="concat")([high, low, mean, down, layers.Cropping2D(((0, 1), (1, 0)), name="crop_valid")(valid)]))
model = keras.Model(x, y)
model.save(os.path.join(folder, "model.h5"))
data = np.random.default_rng(36).normal(size=(8, 8, 3)).astype(np.float32)
np.save(os.path.join(folder, "input.npy"), data)
np.save(os.path.join(folder, "output_chw.npy"), model.predict(data[None], verbose=0)[0].transpose(2, 0, 1))
PY
check keras_layout "$work/layout/input.npy" "$work/layout/output_chw.npy" -- keras "$work/layout/model.h5"

# Unary functions: a TensorFlow graph (random weights) with Abs, Sqrt and Rsqrt of shifted and scaled values, TensorFlow's output the reference.
"$python" - "$work/unary" <<'PY' 2>/dev/null | quiet
import os, sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
rng = np.random.default_rng(36)
w1 = tf.constant(rng.normal(size=(3, 3, 3, 4)).astype(np.float32))
w2 = tf.constant(rng.normal(size=(1, 1, 12, 3)).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 3], tf.float32, name="input")])
def net(x):
    y = tf.nn.conv2d(x, w1, 1, "SAME")
    a = tf.abs(y)
    s = tf.sqrt(a * 0.5 + 0.25)
    r = tf.math.rsqrt(a + 1.0)
    return tf.nn.conv2d(tf.concat([a, s, r], axis=3), w2, 1, "VALID", name="head")
graph = convert_variables_to_constants_v2(net.get_concrete_function()).graph.as_graph_def()
with open(os.path.join(folder, "model.pb"), "wb") as f:
    f.write(graph.SerializeToString())
data = rng.normal(size=(8, 8, 3)).astype(np.float32)
np.save(os.path.join(folder, "input.npy"), data)
np.save(os.path.join(folder, "output_chw.npy"), net(tf.constant(data[None])).numpy()[0].transpose(2, 0, 1))
PY
check tf_unary "$work/unary/input.npy" "$work/unary/output_chw.npy" -- tensorflow "$work/unary/model.pb" --input-shape input:0=1,8,8,3

echo "mlprogram: $failures failure(s)"
[ "$failures" = 0 ]
