#!/usr/bin/env python3
"""Issue 36: every NeuralNetwork model the default suite writes, as an ML Program.

  scripts/verify/mlprogram_suite_models.py [MODELS_DIR] [WORK_DIR]

MODELS_DIR (default .build/mlmodel-check, where scripts/test's swift test
leaves the models it writes, one per fixture and test case) holds .mlmodel
files; each is written again as ML Program packages by
`coreml-convert mlmodel X.mlmodel --convert-to mlprogram` at
--compute-precision float32 and float16. For each package that is written,
coreml-predict runs the .mlmodel and the package on the same random inputs
(a PNG for a model's one image input, so its preprocessing and mean image
run; .npy arrays otherwise, as the network takes them) and every output
.npy of the package is compared with the .mlmodel's: float32 within
1e-4 * max(1, |ref|) element-wise; float16 within the stated bound
max |ours - ref| <= k * 2^-11 * max(1, max |ref|), k the program's
operations other than const (as the attribute sweeps and keras_sweep.py
bound it); a detector's float16 boxes, after non-maximum suppression, are
run but not compared (mlprogram_detectors.sh bounds its rows). A model the program writer refuses is listed with its one-line
reason (not a failure); a comparison past its bound, a crash or a package
that does not read back is. Prints a line per model and a summary; exits 1
on any failure.

The release build's coreml-convert, -inspect and -predict (built first).
The .mlmodel's prediction is our runtime's, which the suite checks against
the frameworks; this holds the program to it (the frameworks' own outputs:
ProgramSweepTests and the other mlprogram_*.sh scripts).
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".build" / "release"


def run(*arguments):
    return subprocess.run([str(a) for a in arguments], capture_output=True, text=True, timeout=600)


def inspect(path):
    result = run(BIN / "coreml-inspect", path, "--json")
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    return json.loads(result.stdout)


def make_inputs(document, folder, rng):
    """Arguments for coreml-predict: a PNG for a lone image input, .npy arrays for the rest."""
    inputs = document["inputs"]
    images = [i for i in inputs if i.get("image")]
    arguments = []
    for feature in inputs:
        image = feature.get("image")
        if image and len(images) == 1:
            channels = 1 if image["colorSpace"] == "Grayscale" else 3
            pixels = rng.integers(0, 256, size=(image["height"], image["width"], channels), dtype=np.uint8)
            path = folder / f"{feature['name']}.png"
            Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels).save(path)
            arguments.append(path)
            continue
        if not feature.get("shape"):
            continue  # an optional scalar (a detector's thresholds): its default
        shape = [d if isinstance(d, int) else 1 for d in feature["shape"]]
        path = folder / f"{feature['name']}.npy"
        np.save(path, rng.standard_normal(shape).astype(np.float32))
        arguments += ["--input", f"{feature['name']}={path}"]
    return arguments


def predict(model, arguments, out):
    result = run(BIN / "coreml-predict", model, *arguments, "--output-npy", out)
    if result.returncode != 0:
        raise RuntimeError(f"coreml-predict {model.name}: {result.stderr.strip()}")
    return {p.name: np.load(p).astype(np.float64) for p in sorted(out.glob("*.npy"))}


def compare(ours, reference, k):
    """(what is past the bound or None, the float16 error measured against its bound)."""
    if set(ours) != set(reference):
        return f"outputs {sorted(ours)} vs the .mlmodel's {sorted(reference)}", ""
    measured = []
    for name, ref in reference.items():
        got = ours[name]
        if got.shape != ref.shape:
            return f"{name}: shape {got.shape} vs {ref.shape}", ""
        # NaN where the .mlmodel gives NaN (a logarithm of a negative input), an infinity where it gives the same one.
        same = (got == ref) | (np.isnan(got) & np.isnan(ref))
        if (np.isnan(got) != np.isnan(ref)).any() or (np.isinf(ref) & ~same).any():
            index = int(np.argmax((np.isnan(got) != np.isnan(ref)) | (np.isinf(ref) & ~same)))
            return f"{name}: value {index} is {got.ravel()[index]}, the .mlmodel gives {ref.ravel()[index]}", ""
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity: `same` covers it
            difference = np.where(same, 0, np.abs(got - ref))
        finite = np.abs(np.where(np.isfinite(ref), ref, 0))
        if k is None:
            excess = difference - 1e-4 * np.maximum(1, finite)
            if (excess > 0).any():
                index = int(np.argmax(excess))
                return f"{name}: value {index} is {got.ravel()[index]}, the .mlmodel gives {ref.ravel()[index]}", ""
        else:
            bound = k * 2.0 ** -11 * max(1.0, float(finite.max(initial=0)))
            error = float(difference.max(initial=0))
            if not error <= bound:
                return f"{name}: up to {error:.3g} from the .mlmodel's, past k * 2^-11 * max(1, max|ref|) = {bound:.3g} (k = {k})", ""
            measured.append(f"{error:.2g} of {bound:.2g}")
    return None, ", ".join(measured)


def main():
    built = subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"swift build -c release failed:\n{built.stdout[-2000:]}{built.stderr[-2000:]}")
    models = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "mlmodel-check"
    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/tmp/mlprogram_suite_models")
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(36)
    counts = {"ok": 0, "refused": 0, "FAIL": 0}
    refusals = {}
    for model in sorted(models.glob("*.mlmodel")):
        folder = work / model.stem
        folder.mkdir(exist_ok=True)
        try:
            document = inspect(model)
            arguments = make_inputs(document, folder, rng)
            (folder / "nn").mkdir(exist_ok=True)
            reference = predict(model, arguments, folder / "nn")
            verdicts = []
            for precision in ("float32", "float16"):
                package = folder / f"{precision}.mlpackage"
                converted = run(BIN / "coreml-convert", "mlmodel", model, "--convert-to", "mlprogram",
                                "--compute-precision", precision, "-q", "-o", package)
                if converted.returncode != 0:
                    reason = converted.stderr.strip().splitlines()[-1] if converted.stderr.strip() else "no message"
                    raise LookupError(reason)
                program = inspect(package)["program"]
                k = None if precision == "float32" else program["operationCount"] - sum(
                    c["count"] for c in program["operationCounts"] if c["type"] == "const")
                (folder / precision).mkdir(exist_ok=True)
                outputs = predict(package, arguments, folder / precision)
                if k is not None and document["kind"] == "detector":
                    # Boxes after non-maximum suppression are not comparable value by value once float16 moves a score
                    # past another (mlprogram_detectors.sh bounds the program's rows before the suppression).
                    verdicts.append(precision + " (read back and run; boxes not compared)")
                    continue
                problem, measured = compare(outputs, reference, k)
                if problem:
                    raise AssertionError(f"{precision}: {problem}")
                verdicts.append(precision + (f" ({measured})" if measured else ""))
            counts["ok"] += 1
            print(f"ok {model.stem}: {', '.join(verdicts)}")
        except LookupError as refusal:
            counts["refused"] += 1
            refusals[model.stem] = str(refusal)
            print(f"refused {model.stem}: {refusal}")
        except Exception as failure:  # a crash, a prediction that failed, a comparison past its bound
            counts["FAIL"] += 1
            print(f"FAIL {model.stem}: {failure}")
    print(f"mlprogram_suite_models: {counts['ok']} models written and matching at float32 and float16, "
          f"{counts['refused']} refused by name, {counts['FAIL']} failed")
    sys.exit(1 if counts["FAIL"] else 0)


if __name__ == "__main__":
    main()
