#!/usr/bin/env python3
"""Every keras.applications model, converted from its .h5 and from its
frozen graph, against Keras's logits: the breadth check of the Keras and
TensorFlow converters. Not part of scripts/test (TensorFlow, up to an hour
for all forty).

  scripts/verify/keras_sweep.py WORK_DIR [MODEL ...] [--markdown FILE]

For each model (default: all of make_keras_applications.SWEEP, at the
smallest input its constructor accepts, random weights and batch-norm
statistics), WORK_DIR/MODEL/ gets the files make_keras_applications.py
writes (made when missing), then both conversions with the preprocessing
Keras's preprocess_input applies for the model (as image preprocessing;
as an array input for the "torch" mode, whose per-channel scale Core ML's
image preprocessing cannot state), a prediction by coreml-predict, and the
comparison of compare_outputs.py: |ours - ref| <= 1e-4 * max(1, |ref|).
Each step runs under a budget of 10 minutes; peak memory is measured
(/usr/bin/time). A row per model: parameters, result from .h5 and from the
graph (ok with the largest difference relative to the largest logit, or
the converter's error), convert times, peak memory. --markdown writes the
table to FILE (COVERAGE.md). Exit status 1 when a conversion that ran
gave wrong numbers (an error is a row, not a failure of the script).
"""
import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "verify"))
from compare_outputs import np  # noqa: E402

BUDGET = 600
CONVERT = ROOT / ".build" / "release" / "coreml-convert"
PREDICT = ROOT / ".build" / "release" / "coreml-predict"


def sweep_models():
    # make_keras_applications imports TensorFlow: read its table without running it.
    text = (ROOT / "scripts" / "verify" / "make_keras_applications.py").read_text()
    names = re.findall(r'"([A-Z][A-Za-z0-9]+)": \(\d+, "', text)
    names += [f"EfficientNetB{i}" for i in range(8)]
    names += [f"EfficientNetV2{v}" for v in ("B0", "B1", "B2", "B3", "S", "M", "L")]
    names += [f"ConvNeXt{v}" for v in ("Tiny", "Small", "Base", "Large", "XLarge")]
    return names


def run(command, budget=BUDGET):
    """(exit status, seconds, peak RSS in MiB, stderr's last error line); shared with torchvision_sweep.py."""
    start = time.monotonic()
    try:
        done = subprocess.run(["/usr/bin/time", "-f", "peak %M", *map(str, command)], capture_output=True,
                              text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return 124, budget, 0, f"over the {budget} s budget"
    seconds = time.monotonic() - start
    peak = [int(line.split()[1]) // 1024 for line in done.stderr.splitlines() if line.startswith("peak ")]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:") or "Killed" in line]
    message = errors[-1] if errors else (done.stderr.strip().splitlines() or [""])[0]
    return done.returncode, seconds, peak[-1] if peak else 0, message


def short(message, work):
    message = message.replace(str(work) + "/", "").removeprefix("error: ")
    return message if len(message) <= 160 else message[:157] + "..."


def convert_and_compare(model_dir, source, options, keras_input):
    """One conversion: a dict with status, error, seconds, peak, difference."""
    array_only = options.get("arrayInputOnly", False)
    preprocessing = []
    if not array_only:
        for key, flag in (("redBias", "--red-bias"), ("greenBias", "--green-bias"), ("blueBias", "--blue-bias"),
                          ("imageScale", "--image-scale")):
            if options[key] != (1.0 if key == "imageScale" else 0.0):
                preprocessing += [flag, repr(options[key])]
        if options["isBGR"]:
            preprocessing.append("--is-bgr")
    size = options["size"]
    output = model_dir / f"{source}.mlmodel"
    output.unlink(missing_ok=True)
    if source == "graph":
        command = [CONVERT, "tensorflow", model_dir / "graph.pb", "--input-shape", f"input:0=1,{size},{size},3"]
        image_input, feature = "input:0", "input"
    else:
        command = [CONVERT, "keras", model_dir / "model.h5"]
        image_input, feature = keras_input, keras_input
    if not array_only:
        command += ["--image-input", image_input]
    status, seconds, peak, message = run(command + preprocessing + ["-o", output])
    row = {"seconds": seconds, "peak": peak}
    if status != 0:
        return dict(row, status="error", error=message)
    ours = model_dir / f"ours-{source}"
    subprocess.run(["rm", "-rf", str(ours)], check=True)
    feed = ["--input", f"{feature}={model_dir / 'input_array.npy'}"] if array_only else [model_dir / "input.png"]
    status, _, predict_peak, message = run([PREDICT, output, *feed, "--output-npy", ours])
    row["peak"] = max(peak, predict_peak)
    if status != 0:
        return dict(row, status="error", error=f"predict: {message}")
    outputs = sorted(ours.glob("*.npy"))
    if len(outputs) != 1:
        return dict(row, status="wrong", error=f"{len(outputs)} outputs")
    mine = np.load(outputs[0]).astype(np.float64).reshape(-1)
    reference = np.load(model_dir / "output.npy").astype(np.float64).reshape(-1)
    if mine.size != reference.size:
        return dict(row, status="wrong", error=f"{mine.size} values, Keras gives {reference.size}")
    worst = float(np.abs(mine - reference).max())
    ok = bool((np.abs(mine - reference) <= 1e-4 * np.maximum(1, np.abs(reference))).all())
    return dict(row, status="ok" if ok else "wrong", difference=worst / float(np.abs(reference).max()))


def keras_input_name(h5):
    import h5py
    config = json.loads(h5py.File(h5)["/"].attrs["model_config"])["config"]
    first = config["input_layers"][0]
    return first[0] if isinstance(first, list) else first


def cell(result, work):
    if result["status"] == "ok":
        return f"ok ({result['difference']:.1e})"
    return f"{result['status'].upper()}: {short(result['error'], work)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("models", nargs="*")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True, capture_output=True)
    rows, wrong = [], False
    for name in args.models or sweep_models():
        model_dir = args.work / name
        if not (model_dir / "options.json").exists():
            status, seconds, _, message = run([sys.executable, ROOT / "scripts" / "verify" / "make_keras_applications.py",
                                               args.work, name])
            if status != 0:
                rows.append((name, "-", f"not made: {message}", "", "", "", ""))
                print(rows[-1], flush=True)
                continue
        options = json.loads((model_dir / "options.json").read_text())
        results = {source: convert_and_compare(model_dir, source, options, keras_input_name(model_dir / "model.h5"))
                   for source in ("h5", "graph")}
        wrong = wrong or any(r["status"] == "wrong" for r in results.values())
        rows.append((name, f"{options['parameters']:,}", cell(results["h5"], args.work), cell(results["graph"], args.work),
                     f"{results['h5']['seconds']:.1f} / {results['graph']['seconds']:.1f}",
                     f"{max(r['peak'] for r in results.values())}", f"{options['size']}"))
        print(" | ".join(rows[-1]), flush=True)
    header = ("model", "parameters", "from .h5 (max diff / max logit)", "from frozen graph", "convert s (.h5 / graph)",
              "peak MiB", "input")
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    converted = sum(cell.startswith("ok") for row in rows for cell in row[2:4])
    summary = f"{converted} of {2 * len(rows)} conversions match Keras ({len(rows)} models)."
    print(summary)
    if args.markdown:
        args.markdown.write_text("\n".join(table) + "\n\n" + summary + "\n")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
