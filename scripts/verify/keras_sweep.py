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

--convert-to mlprogram (issue 36): each source is also converted to an ML
Program package at --compute-precision float32 and float16, and each
package is
  1. checked by scripts/verify/check_mlprogram.py (coremltools 9 opens it,
     its MIL-proto loader rebuilds every operation with type inference,
     Core ML's MILBlob reader, milblob_dump built by build_milblob_dump.sh
     from --coremltools-src, reads every weight, bit-identical to the
     NeuralNetwork .mlmodel's of the same source),
  2. checked by Apple's validator (--validator, skipped when absent),
  3. run by coreml-predict (the package read back into the IR) and
     compared with Keras's logits and with the NeuralNetwork file's
     prediction: float32 at 1e-4 * max(1, |ref|) element-wise; float16
     norm-wise, max |ours - ref| <= k * 2^-11 * max(1, max |ref|), k the
     program's operations with float16 outputs (run_mlprogram_torch.py
     states the bound: 2^-11 is float16's unit roundoff, each rounding
     adds at most that relative error, no operation taken as amplifying an
     earlier one's error; the measured error is printed next to it).
A row per model then: the float32 and float16 results from the .h5 and
from the graph (the largest difference relative to the largest logit;
float16: also the bound k * 2^-11), the checks' verdict.
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


def convert_and_compare(model_dir, source, options, keras_input, precision=None, neural_network=None):
    """One conversion: a dict with status, error, seconds, peak, difference (and outputs: the prediction's folder).
    precision: float32 or float16 for an ML Program package, checked by check_program and compared with
    Keras and with neural_network (the NeuralNetwork file's prediction folder)."""
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
    output = model_dir / (f"{source}.{precision}.mlpackage" if precision else f"{source}.mlmodel")
    subprocess.run(["rm", "-rf", str(output)], check=True)
    if source == "graph":
        command = [CONVERT, "tensorflow", model_dir / "graph.pb", "--input-shape", f"input:0=1,{size},{size},3"]
        image_input, feature = "input:0", "input"
    else:
        command = [CONVERT, "keras", model_dir / "model.h5"]
        image_input, feature = keras_input, keras_input
    if not array_only:
        command += ["--image-input", image_input]
    program = ["--convert-to", "mlprogram", "--compute-precision", precision] if precision else []
    status, seconds, peak, message = run(command + preprocessing + program + ["-o", output])
    row = {"seconds": seconds, "peak": peak}
    if status != 0:
        return dict(row, status="error", error=message)
    ours = model_dir / (f"ours-{source}.{precision}" if precision else f"ours-{source}")
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
    row["outputs"] = ours
    if precision is None:
        return dict(row, **within(mine, reference))
    bound = float16_bound(output) if precision == "float16" else None
    row["bound"] = bound
    results = [within(mine, reference, bound)]
    if neural_network is not None:
        results.append(within(mine, np.load(sorted(neural_network.glob("*.npy"))[0]).astype(np.float64).reshape(-1), bound))
    verdict = check_program(output)
    row["difference"] = results[0]["difference"]
    if results[0]["status"] != "ok":
        return dict(row, status="wrong", error=f"{results[0]['difference']:.2e} of the largest logit from Keras's")
    if len(results) > 1 and results[1]["status"] != "ok":
        return dict(row, status="wrong", error=f"{results[1]['difference']:.2e} from the NeuralNetwork file's prediction")
    return dict(row, status="ok") if verdict == "ok" else dict(row, status="invalid", error=verdict)


def within(mine, reference, bound=None):
    """float32 (bound None): |mine - ref| <= 1e-4 * max(1, |ref|) everywhere; float16: max |mine - ref| <=
    bound * max(1, max |ref|). The largest difference relative to the largest |ref|."""
    worst = float(np.abs(mine - reference).max())
    if bound is None:
        ok = bool((np.abs(mine - reference) <= 1e-4 * np.maximum(1, np.abs(reference))).all())
    else:
        ok = worst <= bound * max(1.0, float(np.abs(reference).max()))
    return {"status": "ok" if ok else "wrong", "difference": worst / float(np.abs(reference).max())}


def float16_bound(package):
    """k * 2^-11, k the program's operations with float16 outputs (run_mlprogram_torch.py)."""
    import coremltools as ct
    spec = ct.utils.load_spec(str(package))
    block = spec.mlProgram.functions["main"].block_specializations["CoreML5"]
    return sum(op.type != "const" and op.outputs[0].type.tensorType.dataType == 10 for op in block.operations) * 2.0 ** -11


PROGRAM_TOOLS = {}


def check_program(package):
    """check_mlprogram.py's verdict on the package (with milblob_dump's reading of its weights and the
    NeuralNetwork .mlmodel of the same source), then Apple's validator's: "ok" or the first failure."""
    source = package.name.split(".")[0]
    blobs = package.with_suffix(".blobs")
    with open(blobs, "w") as out:
        subprocess.run([PROGRAM_TOOLS["milblob_dump"], package / "Data/com.apple.CoreML/weights/weight.bin"], stdout=out, check=True)
    done = subprocess.run([sys.executable, ROOT / "scripts/verify/check_mlprogram.py", package, blobs,
                           package.parent / f"{source}.mlmodel"], capture_output=True, text=True)
    blobs.unlink()
    if done.returncode != 0:
        failures = [line for line in done.stdout.splitlines() if "FAIL" in line] or (done.stderr.strip().splitlines() or ["?"])[-1:]
        return "check_mlprogram: " + failures[0]
    validator = PROGRAM_TOOLS.get("validator")
    if validator:
        verdict = subprocess.run([validator, package / "Data/com.apple.CoreML/model.mlmodel"], capture_output=True, text=True)
        if not verdict.stdout.startswith("OK "):
            return "Apple's validator: " + (verdict.stdout + verdict.stderr).strip()
    return "ok"


def keras_input_name(h5):
    import h5py
    config = json.loads(h5py.File(h5)["/"].attrs["model_config"])["config"]
    first = config["input_layers"][0]
    return first[0] if isinstance(first, list) else first


def cell(result, work):
    if result["status"] == "ok":
        bound = f" <= {result['bound']:.2g}" if result.get("bound") is not None else ""
        return f"ok ({result['difference']:.1e}{bound})"
    return f"{result['status'].upper()}: {short(result['error'], work)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("models", nargs="*")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--convert-to", choices=["neuralnetwork", "mlprogram"], default="neuralnetwork")
    parser.add_argument("--coremltools-src", type=Path, default=Path("/tmp/cmt"), help="an apple/coremltools checkout (MILBlob)")
    parser.add_argument("--validator", type=Path, default=Path("/tmp/validator/bin/validate-mlmodel"))
    args = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True, capture_output=True)
    if args.convert_to == "mlprogram":
        args.work.mkdir(parents=True, exist_ok=True)
        PROGRAM_TOOLS["milblob_dump"] = args.work / "milblob_dump"
        subprocess.run([ROOT / "scripts/verify/build_milblob_dump.sh", args.coremltools_src, PROGRAM_TOOLS["milblob_dump"]], check=True)
        if args.validator.exists():
            PROGRAM_TOOLS["validator"] = args.validator
        return program_sweep(args)
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


def program_sweep(args):
    """--convert-to mlprogram: per model and source, the NeuralNetwork file, then a package per precision."""
    rows, wrong = [], False
    for name in args.models or sweep_models():
        model_dir = args.work / name
        if not (model_dir / "options.json").exists():
            status, _, _, message = run([sys.executable, ROOT / "scripts" / "verify" / "make_keras_applications.py", args.work, name])
            if status != 0:
                rows.append((name, "-", f"not made: {message}", "", "", "", "", ""))
                print(" | ".join(rows[-1]), flush=True)
                continue
        options = json.loads((model_dir / "options.json").read_text())
        keras_input = keras_input_name(model_dir / "model.h5")
        cells, seconds, peak = [], [], 0
        for source in ("h5", "graph"):
            network = convert_and_compare(model_dir, source, options, keras_input)
            for precision in ("float32", "float16"):
                if network["status"] == "error":
                    cells.append(f"(NeuralNetwork: {short(network['error'], args.work)})")
                    continue
                result = convert_and_compare(model_dir, source, options, keras_input, precision, network.get("outputs"))
                wrong = wrong or result["status"] in ("wrong", "invalid")
                cells.append(cell(result, args.work))
                seconds.append(f"{network['seconds']:.1f}/{result['seconds']:.1f}")
                peak = max(peak, result["peak"])
        rows.append((name, f"{options['parameters']:,}", *cells, " ".join(seconds), f"{peak}", f"{options['size']}"))
        print(" | ".join(rows[-1]), flush=True)
    header = ("model", "parameters", ".h5 float32 (max diff / max logit)", ".h5 float16 (diff <= bound k 2^-11)", "graph float32",
              "graph float16", "convert s (NeuralNetwork/package)", "peak MiB", "input")
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    converted = sum(cell.startswith("ok") for row in rows for cell in row[2:6])
    summary = (f"{converted} of {4 * len(rows)} packages ({len(rows)} models, .h5 and graph, float32 and float16) match Keras "
               "and the NeuralNetwork file and pass check_mlprogram.py" + (" and Apple's validator." if "validator" in PROGRAM_TOOLS else "."))
    print(summary)
    if args.markdown:
        args.markdown.write_text("\n".join(table) + "\n\n" + summary + "\n")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
