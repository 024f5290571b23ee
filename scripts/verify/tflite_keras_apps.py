#!/usr/bin/env python3
"""keras.applications models through TFLite, converted by `coreml-convert tflite` and compared
with LiteRT on a few pictures (issue 37). scripts/verify/tflite_keras_apps.sh runs it on the
release build for the COVERAGE.md table; not part of scripts/test (TensorFlow's converter and
LiteRT, 8-20 minutes).

  .venv/bin/python scripts/verify/tflite_keras_apps.py WORK [MODEL ...] [--bin DIR]
      [--kind float,int8 | float16 | dynamic_range] [--markdown FILE]

Models (default: all): mobilenet_v2, mobilenet_v3_small, mobilenet_v3_large, efficientnet_b0,
efficientnet_lite0, resnet50. efficientnet_lite0 is not in keras.applications: it is built here
from keras layers as EfficientNet-Lite0 is defined (EfficientNetB0's stem, seven MBConv stages
and head with ReLU6 for swish and no squeeze-and-excite; `padding="same"` convolutions).

The weights (tflite_keras_models.py) are seeded and made to behave like trained ones: every
batch norm's statistics are the mean and variance of its own input on calibration pictures (so
each normalized activation has a spread near 1 however deep the net), their betas are near 1
(ReLUs pass most values), and the last weighted layer is scaled so the largest logit on them is
10. With the raw random weights the deep nets' logits reached 1e6 (ResNet50) and float32
rounding alone put LiteRT and Keras 1e-4 apart; with betas near 0 half a pixel level of noise
moved MobileNetV2's logits by 1.37 of 9.4 (COVERAGE.md).

Pictures: Samples/face.png, the age_net fixture's face and three seeded synthetic pictures
(shapes, a smooth colour field, stripes), 224x224, pixels 0-255 fed as they are (the models
that rescale do it themselves); the calibration pictures (batch-norm statistics and int8's
representative dataset) are other seeded ones and the two faces mirrored.

Checks, per model and kind, on every picture, against LiteRT's interpreter (builtin kernels):
  float, float16:  |ours - ref| <= 1e-4 * max(1, |ref|) for every logit, the same top-1; for
                   float the notes also compare both with Keras in float64 on the same weights
                   (the truth both float32 computations approximate) and give how far half a
                   pixel level of noise moves LiteRT's logits;
  int8, dynamic_range: the same bound and top-1 against LiteRT on the file's float twin
                   (tflite_dequantized.py: the file's own int8 weights and int32 biases
                   dequantized, QUANTIZE / DEQUANTIZE removed, float activations): what the
                   conversion promises to compute. Against LiteRT's quantized kernels, which also
                   round every activation to 8 bits, the notes give the largest difference per
                   picture against LiteRT's own distance between the float and quantized files
                   (the weights' rounding and the activations'), and the top-1.
The margin between the reference's top-1 and top-2 logits is printed: top-1 agreement means something
only where the error is below it. Top-1 is the same when our top class is one LiteRT ranks first
(an int8 output is a multiple of its step: two classes can tie; the margin is then 0). Convert
seconds and peak memory come from /usr/bin/time -v.
"""
import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tflite_dequantized import float_twin  # noqa: E402
from tflite_keras_models import MODELS, build, calibration_pictures, test_pictures  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def configure(converter, kind, calibration):
    """The TFLiteConverter settings of `kind`."""
    import tensorflow as tf
    if kind == "float":
        return
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if kind == "float16":
        converter.target_spec.supported_types = [tf.float16]
    elif kind == "int8":  # full integer, float input and output
        converter.representative_dataset = lambda: ([picture[None]] for picture in calibration)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]


def to_tflite(model, kind, calibration, path):
    import tensorflow as tf
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        configure(converter, kind, calibration)
        path.write_bytes(converter.convert())


def litert(path, pictures):
    """LiteRT's logits for each picture, the input's name, and the quantization step of the tensor
    the output is dequantized from (None for a float output)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    source, sink = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    outputs = []
    for picture in pictures:
        interpreter.set_tensor(source["index"], picture[None])
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(sink["index"]).reshape(-1).astype(np.float64))
    step = None
    with contextlib.suppress(Exception):  # private API: the output step is informative only
        for op in interpreter._get_ops_details():
            if op["op_name"] == "DEQUANTIZE" and sink["index"] in list(op["outputs"]):
                step = float(interpreter._get_tensor_details(int(op["inputs"][0]), 0)["quantization_parameters"]["scales"][0])
    return np.stack(outputs), source["name"], step


def timed_convert(bin_dir, path, mlmodel):
    """Runs coreml-convert under /usr/bin/time -v: (wall seconds, peak resident MiB)."""
    report = mlmodel.with_suffix(".time")
    subprocess.run(["/usr/bin/time", "-v", "-o", str(report), str(bin_dir / "coreml-convert"), "tflite", str(path),
                    "-o", str(mlmodel), "-q"], check=True)
    text = report.read_text()
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1).split(":")
    seconds = sum(float(part) * 60 ** index for index, part in enumerate(reversed(clock)))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    return seconds, peak


def ours(bin_dir, mlmodel, feature, pictures, work):
    outputs = []
    for index, picture in enumerate(pictures):
        array, folder = work / f"picture{index}.npy", mlmodel.with_name(f"{mlmodel.stem}_out{index}")
        np.save(array, np.ascontiguousarray(picture.transpose(2, 0, 1)))
        folder.mkdir(exist_ok=True)
        subprocess.run([str(bin_dir / "coreml-predict"), str(mlmodel), "--input", f"{feature}={array}",
                        "--output-npy", str(folder)], check=True, stdout=subprocess.DEVNULL)
        outputs.append(np.load(next(folder.glob("*.npy"))).reshape(-1).astype(np.float64))
    return np.stack(outputs)


def margin(logits):
    top = np.sort(logits, axis=1)
    return top[:, -1] - top[:, -2]


def check(name, kinds, work, bin_dir):
    import keras
    calibration, pictures = calibration_pictures(), test_pictures()
    model = build(name, calibration)
    rows, float_ref = [], None
    for kind in kinds:
        path, mlmodel = work / f"{name}_{kind}.tflite", work / f"{name}_{kind}.mlmodel"
        to_tflite(model, kind, calibration, path)
        ref, input_name, step = litert(path, pictures)
        feature = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in input_name)
        seconds, peak = timed_convert(bin_dir, path, mlmodel)
        got = ours(bin_dir, mlmodel, feature, pictures, work)
        diff = np.abs(got - ref)
        largest = np.abs(ref).max()
        # The same top-1: ours's class is one LiteRT ranks first (8-bit logits can tie).
        top1 = int((ref[np.arange(len(ref)), got.argmax(1)] == ref.max(1)).sum())
        row = {"model": name, "kind": kind, "pictures": len(pictures), "largest": largest, "error": diff.max(),
               "top1": f"{top1}/{len(pictures)}", "margin": margin(ref).min(), "seconds": seconds, "peak": peak,
               "size": path.stat().st_size / 2 ** 20}
        if kind in ("float", "float16"):
            outside = int((diff > 1e-4 * np.maximum(1, np.abs(ref))).sum())
            row["bound"], row["outside"] = "1e-4 * max(1, abs ref)", outside
            row["ok"] = outside == 0 and top1 == len(pictures)
            if kind == "float":
                float_ref = ref
                truth = float64_logits(name, model, pictures)
                keras32 = model.predict(np.stack(pictures), verbose=0).astype(np.float64)
                def outside_truth(values):
                    return int((np.abs(values - truth) > 1e-4 * np.maximum(1, np.abs(truth))).sum())
                row["evidence"] = (f"against Keras in float64, largest difference (of the largest) and values outside the "
                                   f"bound: LiteRT {np.abs(ref - truth).max() / largest:.1e} {outside_truth(ref)}, ours "
                                   f"{np.abs(got - truth).max() / largest:.1e} {outside_truth(got)}, Keras float32 "
                                   f"{np.abs(keras32 - truth).max() / largest:.1e} {outside_truth(keras32)}; within "
                                   f"1e-4 * max(1, largest abs ref): {'yes' if diff.max() <= 1e-4 * max(1, largest) else 'no'}; "
                                   + sensitivity(path, pictures, ref))
        else:
            row.update(quantized(name, kind, path, work, pictures, got, ref, step, float_ref, lambda: float_file(model, calibration, work / f"{name}_float.tflite")))
        rows.append(row)
        print(format_row(row), flush=True)
    keras.backend.clear_session()
    return rows


def quantized(name, kind, path, work, pictures, got, ref, step, float_ref, make_float_file):
    """The checks of a quantized file. Strict: against LiteRT on the file's float twin
    (tflite_dequantized.py: the same int8 weights dequantized, float activations), every logit
    within 1e-4 * max(1, |ref|) and the same top-1. Stated: against LiteRT's quantized kernels,
    which also round every activation to 8 bits, the largest difference per picture against
    LiteRT's own distance between the float and quantized files, and the top-1."""
    twin_path = work / f"{name}_{kind}_twin.tflite"
    float_twin(path, twin_path)
    twin = litert(twin_path, pictures)[0]
    if float_ref is None:
        float_ref = litert(make_float_file(), pictures)[0]
    diff, twin_diff = np.abs(got - ref), np.abs(got - twin)
    outside = int((twin_diff > 1e-4 * np.maximum(1, np.abs(twin))).sum())
    top1 = int((twin[np.arange(len(twin)), got.argmax(1)] == twin.max(1)).sum())
    bound = np.abs(float_ref - ref).max(axis=1)
    litert_top1 = int((ref[np.arange(len(ref)), got.argmax(1)] == ref.max(1)).sum())
    # Where the quantization's error exceeds the margin, LiteRT's own float and quantized files disagree too.
    agree = int((ref[np.arange(len(ref)), float_ref.argmax(1)] == ref.max(1)).sum())
    return {"largest": np.abs(twin).max(), "error": twin_diff.max(), "bound": "1e-4 * max(1, abs ref), ref: the float twin",
            "outside": outside, "top1": f"{top1}/{len(twin)}", "margin": margin(twin).min(),
            "ok": outside == 0 and top1 == len(twin),
            "evidence": (f"against LiteRT's {kind} kernels: largest difference {diff.max():.3g} (of the largest "
                         f"{np.abs(ref).max():.4g}), per picture against LiteRT's float-vs-{kind} distance "
                         f"{bound.max():.3g}: {', '.join(f'{e:.2g}' for e in diff.max(axis=1) / bound)}; top-1 the same on "
                         f"{litert_top1}/{len(ref)} (LiteRT's margin {margin(ref).min():.3g}); LiteRT's float file has its "
                         f"{kind} file's top-1 on {agree}/{len(ref)}; ours differs from LiteRT's float file by "
                         f"{np.abs(got - float_ref).max():.3g}" + (f"; output step {step:.3g}" if step else ""))}


def float_file(model, calibration, path):
    to_tflite(model, "float", calibration, path)
    return path


def sensitivity(path, pictures, ref):
    """How far LiteRT's own float logits move when every pixel moves by at most half a level: the
    scale below which no top-1 can be expected to survive an 8-bit model's roundings."""
    rng = np.random.default_rng(0)
    noisy = litert(path, [np.clip(p + rng.uniform(-0.5, 0.5, p.shape), 0, 255).astype(np.float32) for p in pictures])[0]
    return (f"pixels +-0.5 move LiteRT's logits by {np.abs(noisy - ref).max():.3g}, top-1 kept on "
            f"{int((noisy.argmax(1) == ref.argmax(1)).sum())}/{len(ref)}")


def float64_logits(name, model, pictures):
    """The same model and weights computed by Keras in float64."""
    import keras
    keras.config.set_dtype_policy("float64")
    try:
        twin = build(name, None)
        twin.set_weights([w.astype(np.float64) for w in model.get_weights()])
        return twin.predict(np.stack(pictures).astype(np.float64), verbose=0).astype(np.float64)
    finally:
        keras.config.set_dtype_policy("float32")


HEADER = ("| model | kind | pictures | largest abs ref | max error (of largest) | bound | outside | top-1 same | "
          "min top-1 margin | convert s | peak MiB | .tflite MiB | notes |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def format_row(row):
    return (f"| {row['model']} | {row['kind']} | {row['pictures']} | {row['largest']:.4g} | {row['error']:.3g} "
            f"({row['error'] / row['largest']:.1e}) | {row['bound']} | {row['outside']} | {row['top1']} | {row['margin']:.3g} | "
            f"{row['seconds']:.2f} | {row['peak']:.0f} | {row['size']:.1f} | {'ok' if row['ok'] else 'FAIL'}{'; ' + row['evidence'] if 'evidence' in row else ''} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("models", nargs="*", default=MODELS)
    parser.add_argument("--bin", default=str(ROOT / ".build" / "release"))
    parser.add_argument("--kind", default="float,int8",
                        help="comma-separated, of float, float16, dynamic_range (optimizations DEFAULT), int8 (full "
                        "integer, representative dataset, float input and output)")
    parser.add_argument("--markdown", help="also write the table here")
    args = parser.parse_args()
    kinds = args.kind.split(",")
    for kind in kinds:
        if kind not in ("float", "float16", "dynamic_range", "int8"):
            parser.error(f"unknown kind {kind!r}")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    rows = []
    for name in args.models:
        rows += check(name, kinds, work, Path(args.bin))
    if args.markdown:
        Path(args.markdown).write_text(HEADER + "\n" + "\n".join(format_row(row) for row in rows) + "\n")
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
