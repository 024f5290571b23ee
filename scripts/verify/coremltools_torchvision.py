#!/usr/bin/env python3
"""torchvision's models converted by coremltools (not by this toolkit) to ML
Programs, read and run by coreml-predict, against torch: this toolkit as the
Linux check of a coremltools conversion.

  .venv/bin/python scripts/verify/coremltools_torchvision.py [WORK] [--predict BIN] [NAME ...]

For each model of make_onnx_torchvision.MODELS (the same seeded random
weights, batch-norm statistics and input; default: all), WORK/NAME/ (default
WORK /tmp/coremltools_torchvision) gets theirs_float32.mlpackage and
theirs_float16.mlpackage: ct.convert(torch.jit.trace(model, x),
inputs=[ct.TensorType(name="input", shape=x.shape)], convert_to="mlprogram",
minimum_deployment_target=ct.target.iOS15, compute_precision=FLOAT32 /
FLOAT16). coreml-predict (default: swift build -c release's) runs each on x;
its output is compared with torch's: float32 within 1e-4 * max(1, |ref|);
float16 within k * 2^-11 * max(1, max |ref|), k the program's operations
other than const (the bound ForeignProgramTests states). A line per package,
a summary; exit status 1 if a package the reader reads computes wrong
numbers. A package it refuses is a line saying why (the first operation it
does not read): the breadth, not a failure of the script.

Pinned as make_onnx_torchvision.py and mlprogram_structure.py: coremltools
9.0, torch 2.13.0+cpu, torchvision 0.29.2 (scripts/bootstrap --fixtures).
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_onnx_torchvision as source  # noqa: E402  (declares torchvision's operators, then imports it)
import torch  # noqa: E402

import coremltools as ct  # noqa: E402


class Unwrapped(torch.nn.Module):
    """A segmentation model's output dictionary's "out", which torch.jit.trace cannot return."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        y = self.model(x)
        return y["out"] if isinstance(y, dict) else y


def check(package, x, reference, precision, predict, folder):
    described = subprocess.run([str(Path(predict).parent / "coreml-inspect"), str(package), "--json"], capture_output=True, text=True)
    if described.returncode != 0:
        return "refused", described.stderr.strip().split("\n")[0]
    document = json.loads(described.stdout)
    operations = sum(c["count"] for c in document["program"]["operationCounts"] if c["type"] != "const")
    output_name = document["outputs"][0]["name"]
    np.save(folder / "input.npy", x)
    out = folder / f"predicted_{precision}"
    done = subprocess.run([predict, str(package), "--input", f"input={folder / 'input.npy'}", "--output-npy", str(out)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return "refused", done.stderr.strip().split("\n")[0]
    ours, ref = np.load(out / f"{output_name}.npy").reshape(-1), reference.reshape(-1)
    if ours.shape != ref.shape:
        return "wrong", f"{ours.shape[0]} values, torch {ref.shape[0]}"
    if precision == "float32":
        worst, bound = float((np.abs(ours - ref) / np.maximum(1, np.abs(ref))).max()), 1e-4
    else:
        worst, bound = float(np.abs(ours - ref).max() / max(1.0, float(np.abs(ref).max()))), operations * 2.0 ** -11
    return ("ok" if worst <= bound else "wrong"), f"{worst:.2g} (bound {bound:.2g}, {operations} operations)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", nargs="?", type=Path, default=Path("/tmp/coremltools_torchvision"))
    parser.add_argument("--predict", default=str(ROOT / ".build" / "release" / "coreml-predict"))
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    counts = {"ok": 0, "wrong": 0, "refused": 0}
    for index, name in enumerate(source.MODELS):
        if args.names and name not in args.names:
            continue
        folder = args.work / name
        folder.mkdir(parents=True, exist_ok=True)
        model, x, reference = source.build(name, index)
        traced = torch.jit.trace(Unwrapped(model), x, check_trace=False)
        for precision in ("float32", "float16"):
            package = folder / f"theirs_{precision}.mlpackage"
            if not package.exists():
                try:
                    converted = ct.convert(traced, inputs=[ct.TensorType(name="input", shape=x.shape)], convert_to="mlprogram",
                                           minimum_deployment_target=ct.target.iOS15,
                                           compute_precision=getattr(ct.precision, precision.upper()))
                except Exception as error:  # coremltools' own refusal: not ours to judge
                    print(f"{name} {precision}: coremltools did not convert it: {str(error).splitlines()[0][:200]}", flush=True)
                    continue
                converted.save(str(package))
            verdict, detail = check(package, x.numpy(), reference, precision, args.predict, folder)
            counts[verdict] += 1
            print(f"{name} {precision}: {verdict}: {detail}", flush=True)
    print(f"coremltools_torchvision: {counts['ok']} ok, {counts['wrong']} wrong, {counts['refused']} refused by the reader")
    sys.exit(1 if counts["wrong"] else 0)


if __name__ == "__main__":
    main()
