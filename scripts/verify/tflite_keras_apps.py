#!/usr/bin/env python3
"""keras.applications models through TFLite, float (issue 37): a first
breadth check of `coreml-convert tflite`. Not part of scripts/test
(TensorFlow's converter and LiteRT; a few minutes for the five).

  .venv/bin/python scripts/verify/tflite_keras_apps.py WORK [MODEL ...] [--bin DIR]

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


def check(name, work, bin_dir):
    import tensorflow as tf
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    model = build(name)
    path = work / f"{name}.tflite"
    with contextlib.redirect_stdout(io.StringIO()):  # the converter prints the saved model's signature
        path.write_bytes(tf.lite.TFLiteConverter.from_keras_model(model).convert())
    x = np.random.default_rng(1).uniform(0, 255, (1, 224, 224, 3)).astype(np.float32)
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    ref = interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).reshape(-1)
    input_name = interpreter.get_input_details()[0]["name"]
    feature = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in input_name)
    np.save(work / f"{name}_input.npy", np.ascontiguousarray(x[0].transpose(2, 0, 1)))
    mlmodel, outputs = work / f"{name}.mlmodel", work / f"{name}_outputs"
    outputs.mkdir(exist_ok=True)
    subprocess.run([str(bin_dir / "coreml-convert"), "tflite", str(path), "-o", str(mlmodel), "-q"], check=True)
    subprocess.run([str(bin_dir / "coreml-predict"), str(mlmodel), "--input", f"{feature}={work / f'{name}_input.npy'}",
                    "--output-npy", str(outputs)], check=True, stdout=subprocess.DEVNULL)
    ours = np.load(next(outputs.glob("*.npy"))).reshape(-1)
    diff = np.abs(ours - ref)
    outside = int((diff > 1e-4 * np.maximum(1, np.abs(ref))).sum())
    largest = np.abs(ref).max()
    print(f"| {name} | {ref.size} | {largest:.4g} | {diff.max():.3g} ({diff.max() / largest:.2g}) | {outside} | "
          f"{'yes' if ours.argmax() == ref.argmax() else 'NO'} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("models", nargs="*", default=MODELS)
    parser.add_argument("--bin", default=str(ROOT / ".build" / "debug"))
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print("| model | logits | largest abs ref | largest difference (of the largest) | outside 1e-4*max(1,abs ref) | top-1 same |")
    print("|---|---|---|---|---|---|")
    for name in args.models:
        check(name, work, Path(args.bin))


if __name__ == "__main__":
    sys.exit(main())
