#!/usr/bin/env python3
"""keras.applications models through TFLite, float, float16 and quantized (issue 37): a first
breadth check of `coreml-convert tflite`. Not part of scripts/test
(TensorFlow's converter and LiteRT; a few minutes for the five).

  .venv/bin/python scripts/verify/tflite_keras_apps.py WORK [MODEL ...] [--bin DIR] [--kind float|float16|dynamic_range|int8]

For each model (default: mobilenet_v2, mobilenet_v3_small,
mobilenet_v3_large, efficientnet_b0, resnet50):
 1. builds it with weights=None, batch None, 224x224, logits
    (classifier_activation=None), and draws weights that keep its outputs
    far from 0: kernels normal with std sqrt(2 / fan-in), batch-norm
    gamma and variance uniform in [0.8, 1.2], beta, mean and biases normal
    with std 0.1;
 2. converts it with tf.lite.TFLiteConverter.from_keras_model (float);
 3. runs LiteRT's interpreter (builtin kernels, no delegate) on one seeded
    input, pixels uniform in [0, 255] (the models rescale them themselves);
 4. converts the file with `coreml-convert tflite`, runs it with
    `coreml-predict --input NAME=x.npy --output-npy`, and compares.
Prints one row per model: logits, the largest |ref|, the largest
difference (and its ratio to the largest |ref|), how many values lie
outside 1e-4 * max(1, |ref|), and whether the top-1 class is the same.

Measured 2026-12-07 (debug build):

| model | logits | largest abs ref | largest difference (of the largest) | outside 1e-4*max(1,abs ref) | top-1 same |
|---|---|---|---|---|---|
| mobilenet_v2 | 1000 | 9.919 | 4.67e-05 (4.7e-06) | 0 | yes |
| mobilenet_v3_small | 1000 | 0.9107 | 7.75e-07 (8.5e-07) | 0 | yes |
| mobilenet_v3_large | 1000 | 188.4 | 0.00908 (4.8e-05) | 243 | yes |
| efficientnet_b0 | 1000 | 0.7323 | 3.58e-07 (4.9e-07) | 0 | yes |
| resnet50 | 1000 | 1.022e+06 | 0.5 (4.9e-07) | 3 | yes |

mobilenet_v3_large and resnet50 reach logits in the hundreds and the
millions with these weights; Keras's own predict differs from LiteRT on
the same file as much (largest difference 0.0055, 137 values outside;
resnet50 1.06, 4 outside): float32 rounding, not the conversion.

With --kind (2026-12-07, debug build; the last column, LiteRT on the
float file against LiteRT on this one, is the quantization's own error):

| model | kind | logits | largest abs ref | largest difference (of the largest) | outside 1e-4*max(1,abs ref) | top-1 same | LiteRT's float file differs by |
|---|---|---|---|---|---|---|---|
| mobilenet_v2 | float16 | 1000 | 9.916 | 4.51e-05 (4.6e-06) | 0 | yes | |
| mobilenet_v3_small | float16 | 1000 | 0.9108 | 9.83e-07 (1.1e-06) | 0 | yes | |
| efficientnet_b0 | float16 | 1000 | 0.7322 | 4.47e-07 (6.1e-07) | 0 | yes | |
| mobilenet_v2 | dynamic_range | 1000 | 10.01 | 0.633 (0.063) | 1000 | yes | 0.831 |
| mobilenet_v3_small | dynamic_range | 1000 | 0.9088 | 0.0103 (0.011) | 975 | yes | 0.014 |
| efficientnet_b0 | dynamic_range | 1000 | 0.7358 | 0.00608 (0.0083) | 968 | yes | 0.0121 |
| mobilenet_v2 | int8 | 1000 | 10.22 | 0.876 (0.086) | 998 | yes | 0.877 |
| mobilenet_v3_small | int8 | 1000 | 0.9077 | 0.0156 (0.017) | 979 | yes | 0.0187 |
| efficientnet_b0 | int8 | 1000 | 0.7332 | 0.0101 (0.014) | 975 | yes | 0.0143 |

float16 files match as the float ones do. The quantized ones differ from
LiteRT by less than LiteRT's own quantized and float files differ: LiteRT
quantizes activations (on the fly in dynamic-range kernels, to int8 levels
in full-integer ones), the converted models compute them in float with
the file's own int8 kernels; the top-1 class is the same.

Pinned: tensorflow-cpu 2.21.0, keras 3.15.1, ai-edge-litert 2.3.0
(requirements-fixtures.txt).
"""
import argparse
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0", "resnet50"]


def build(name):
    import keras
    constructors = {"mobilenet_v2": keras.applications.MobileNetV2, "mobilenet_v3_small": keras.applications.MobileNetV3Small,
                    "mobilenet_v3_large": keras.applications.MobileNetV3Large, "efficientnet_b0": keras.applications.EfficientNetB0,
                    "resnet50": keras.applications.ResNet50}
    keras.utils.set_random_seed(3)
    model = constructors[name](weights=None, input_shape=(224, 224, 3), classifier_activation=None)
    rng = np.random.default_rng(5)
    for layer in model.layers:
        weights = layer.get_weights()
        if not weights:
            continue
        drawn = []
        for index, w in enumerate(weights):
            if isinstance(layer, keras.layers.BatchNormalization):
                values = [rng.uniform(0.8, 1.2, w.shape), rng.normal(0, 0.1, w.shape), rng.normal(0, 0.1, w.shape),
                          rng.uniform(0.8, 1.2, w.shape)][index]
            elif w.ndim >= 2:
                fan_in = np.prod(w.shape[:2]) if isinstance(layer, keras.layers.DepthwiseConv2D) else np.prod(w.shape[:-1])
                values = rng.normal(0, np.sqrt(2 / fan_in), w.shape)
            else:
                values = rng.normal(0, 0.1, w.shape)
            drawn.append(values.astype(np.float32))
        layer.set_weights(drawn)
    return model


def configure(converter, kind):
    """The TFLiteConverter settings of `kind` (--kind)."""
    import tensorflow as tf
    if kind == "float":
        return
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if kind == "float16":
        converter.target_spec.supported_types = [tf.float16]
    elif kind == "int8":  # full integer, float input and output; calibrated on 8 seeded pixel images
        calibration = np.random.default_rng(2).uniform(0, 255, (8, 1, 224, 224, 3)).astype(np.float32)
        converter.representative_dataset = lambda: ([sample] for sample in calibration)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]


def check(name, work, bin_dir, kind="float"):
    import tensorflow as tf
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    model = build(name)
    path = work / f"{name}_{kind}.tflite"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # the converter prints the saved model's signature
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        configure(converter, kind)
        path.write_bytes(converter.convert())
    x = np.random.default_rng(1).uniform(0, 255, (1, 224, 224, 3)).astype(np.float32)
    def litert(path):
        interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interpreter.allocate_tensors()
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
        interpreter.invoke()
        return interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).reshape(-1), interpreter

    ref, interpreter = litert(path)
    # The scale of the quantization's own error: LiteRT on the float file against LiteRT on this one.
    float_gap = ""
    if kind != "float":
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            (work / f"{name}_float.tflite").write_bytes(tf.lite.TFLiteConverter.from_keras_model(model).convert())
        float_gap = f" {np.abs(litert(work / f'{name}_float.tflite')[0] - ref).max():.3g} |"
    input_name = interpreter.get_input_details()[0]["name"]
    feature = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in input_name)
    np.save(work / f"{name}_input.npy", np.ascontiguousarray(x[0].transpose(2, 0, 1)))
    mlmodel, outputs = work / f"{name}_{kind}.mlmodel", work / f"{name}_{kind}_outputs"
    outputs.mkdir(exist_ok=True)
    subprocess.run([str(bin_dir / "coreml-convert"), "tflite", str(path), "-o", str(mlmodel), "-q"], check=True)
    subprocess.run([str(bin_dir / "coreml-predict"), str(mlmodel), "--input", f"{feature}={work / f'{name}_input.npy'}",
                    "--output-npy", str(outputs)], check=True, stdout=subprocess.DEVNULL)
    ours = np.load(next(outputs.glob("*.npy"))).reshape(-1)
    diff = np.abs(ours - ref)
    outside = int((diff > 1e-4 * np.maximum(1, np.abs(ref))).sum())
    largest = np.abs(ref).max()
    print(f"| {name} | {kind} | {ref.size} | {largest:.4g} | {diff.max():.3g} ({diff.max() / largest:.2g}) | {outside} | "
          f"{'yes' if ours.argmax() == ref.argmax() else 'NO'} |{float_gap}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("models", nargs="*", default=MODELS)
    parser.add_argument("--bin", default=str(ROOT / ".build" / "debug"))
    parser.add_argument("--kind", default="float", choices=["float", "float16", "dynamic_range", "int8"],
                        help="how TFLiteConverter writes the model (float16: supported_types float16; dynamic_range: "
                        "optimizations DEFAULT; int8: full integer with float input and output)")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    gap = "" if args.kind == "float" else " LiteRT's float file differs by |"
    print(f"| model | kind | logits | largest abs ref | largest difference (of the largest) | outside 1e-4*max(1,abs ref) | top-1 same |{gap}")
    print("|---|---|---|---|---|---|---|" + ("---|" if gap else ""))
    for name in args.models:
        check(name, work, Path(args.bin), args.kind)


if __name__ == "__main__":
    sys.exit(main())
