#!/usr/bin/env python3
"""Every torchvision classification and semantic-segmentation model through
ONNX: the breadth check of the ONNX converter (issue 34). Not part of
scripts/test (torch, onnxruntime; hours for all 86 at full parameter count).

  .venv/bin/python scripts/verify/torchvision_sweep.py WORK [MODEL ...] [--markdown FILE]
      [--skip-larger-than N] [--keep] [--again]

For each model (default: torchvision.models.list_models() of the
classification and segmentation modules; quantized, video, detection and
optical-flow models are other modules and not listed), a worker process
(this script with --export, under a 20-minute budget):
 1. builds it with weights=None, draws weights and batch-norm statistics
    that keep outputs far from 0 (make_onnx_torchvision.randomize), divides
    each batch norm's scale and shift by its output's spread on the input
    (`calibrate`: no growth with depth), and scales the last linear layer
    so the largest logit is 10 where it would pass 100,
 2. finds the smallest square input the model runs on and the TorchScript
    exporter takes at opset 17 (32, 64, 96, 128, 160, 224, 299; ViTs take
    the 224 their position embedding holds; alexnet's adaptive pooling
    exports only where its output divides the map),
 3. exports it with PyTorch's TorchScript exporter at opset 17 with a
    static batch and with a dynamic one, at the lowest opset it exports at
    (9, 11, 13, 14 or 16 tried in turn), and through the dynamo exporter
    (opset 18) where that works; onnxruntime's output on one seeded input is
    each file's reference (where it differs from torch's own output by
    more than 1e-3*max(1,|ref|), the cell says by how much: random weights
    make the deepest nets' float32 sums diverge between the two).
Then each file is converted by `coreml-convert onnx` (seconds and peak
memory measured by /usr/bin/time), run by `coreml-predict`, and compared:
|ours - ref| <= 1e-4 * max(1, |ref|) everywhere. With VALIDATOR set (the
program scripts/verify/build_apple_validator.sh builds), Apple's validator
checks every converted file.

A row per model: parameters, input size, each export's result (ok with the
largest difference relative to the largest |ref|, or the converter's error,
which names the op), convert seconds and peak MiB of the opset-17 file
(and the peak above `coreml-convert --version`'s as a multiple of the
float32 weight bytes). --markdown writes
the table to FILE. Exit status 1 when a conversion that ran gave wrong
numbers or a file Apple's validator refuses (a refusal is a row, not a
failure). A model's row is kept in WORK/MODEL/row.json, and its large files
are deleted (unless --keep): a second run lists it again without work
(unless --again, which needs --keep'd files or a new WORK).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# TOOLKIT_BIN: a folder holding release builds of the programs (else this checkout's, built first).
BIN = Path(os.environ.get("TOOLKIT_BIN", ROOT / ".build" / "release"))
CONVERT, PREDICT = BIN / "coreml-convert", BIN / "coreml-predict"
EXPORT_BUDGET, STEP_BUDGET = 1200, 600
SIZES = [32, 64, 96, 128, 160, 224, 299]
LOW_OPSETS = [9, 11, 13, 14, 16]
COLUMNS = [("opset17", "opset 17"), ("opset17_dynamic", "opset 17, dynamic batch"), ("lowest", "lowest opset"),
           ("dynamo", "dynamo (opset 18)")]


def sweep_models():
    code = ("import sys; sys.path.insert(0, %r); import make_onnx_torchvision, torchvision; from torchvision import models; "
            "print(' '.join(models.list_models(module=torchvision.models) + "
            "models.list_models(module=torchvision.models.segmentation)))") % str(ROOT / "scripts" / "verify")
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()


# ---------------------------------------------------------------- the worker

def calibrate(model, x):
    """Each batch norm's scale and shift divided by the spread of its output
    on x, in the order the forward pass meets them: random weights alone
    make the deepest nets' values grow with depth (efficientnet_v2_m's and
    b5-b7's until float32 sums of torch and onnxruntime differ by 20%),
    which would make any comparison say nothing."""
    import torch

    def hook(module, inputs, output):
        spread = float(output.std())
        if spread > 0:
            module.weight.div_(spread)
            module.bias.div_(spread)
            return output / spread

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, torch.nn.BatchNorm2d) and m.weight is not None]
    with torch.no_grad():
        model(x)
    for handle in handles:
        handle.remove()


def export_model(work, name, skip_larger_than=None):
    """Writes WORK/NAME/{input.npy, LABEL/model.onnx, LABEL/output.npy, meta.json}."""
    sys.path.insert(0, str(ROOT / "scripts" / "verify"))
    import numpy as np
    import torch
    import make_onnx_torchvision  # declares torchvision's C++ operators before torchvision is imported
    import onnxruntime
    import torchvision
    from torchvision import models

    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    segmentation = name in models.list_models(module=torchvision.models.segmentation)
    torch.manual_seed(0)
    if segmentation:
        net = models.get_model(name, weights=None, weights_backbone=None, aux_loss=False)
    else:
        net = models.get_model(name, weights=None)
    net.eval()
    make_onnx_torchvision.randomize(net, 0)

    class Output(torch.nn.Module):
        """The segmentation models' dict reduced to its "out" map."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)["out"]

    # eval() on the wrapper too: torch.onnx.export puts a model back in the mode it found it in, and a new
    # wrapper is in training mode (its batch norms would then normalize by the batch's own statistics).
    model = (Output(net) if segmentation else net).eval()
    meta = {"parameters": sum(p.numel() for p in net.parameters()), "segmentation": segmentation, "exports": {}}
    meta["weight_bytes"] = 4 * meta["parameters"]
    if skip_larger_than and meta["parameters"] > skip_larger_than * 1e6:
        meta["skipped"] = True
        (folder / "meta.json").write_text(json.dumps(meta))
        return
    sizes = [224] if name.startswith("vit") else SIZES
    x = reference = None
    for size in sizes:
        candidate = torch.from_numpy(np.random.default_rng(0).standard_normal((1, 3, size, size)).astype(np.float32))
        try:
            with torch.no_grad():
                output = model(candidate)
        except Exception as error:  # too small for its pooling or window sizes
            meta["smaller_inputs"] = f"{size}: {str(error).splitlines()[0][:200]}"
            continue
        if x is None:
            x, reference, meta["size"] = candidate, output, size
        # The smallest size the exporter takes too (alexnet's adaptive pooling exports only to a factor of its input).
        try:
            torch.onnx.export(model, (candidate,), str(folder / "probe.onnx"), opset_version=17, dynamo=False)
        except Exception as error:
            meta["smaller_inputs"] = f"{size}: export: {str(error).splitlines()[0][:200]}"
            continue
        x, reference, meta["size"] = candidate, output, size
        break
    (folder / "probe.onnx").unlink(missing_ok=True)
    if x is None:
        meta["error"] = "no input size of " + ", ".join(map(str, sizes)) + " runs"
        (folder / "meta.json").write_text(json.dumps(meta))
        return
    size = meta["size"]
    calibrate(model, x)
    with torch.no_grad():
        reference = model(x)
        linear = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1:]
        if not segmentation and float(reference.abs().max()) > 100 and linear:
            factor = 10 / float(reference.abs().max())
            linear[0].weight.mul_(factor)
            if linear[0].bias is not None:
                linear[0].bias.mul_(factor)
            reference = model(x)
    reference = reference.numpy()
    np.save(folder / "input.npy", x.numpy())

    def export(label, opset, dynamic=False, dynamo=False):
        out = folder / label
        out.mkdir(exist_ok=True)
        path = out / "model.onnx"
        start = time.monotonic()
        try:
            if dynamo:
                torch.onnx.export(model, (x,), str(path), opset_version=opset, dynamo=True, input_names=["input"],
                                  output_names=["output"])
            else:
                torch.onnx.export(model, (x,), str(path), opset_version=opset, dynamo=False, input_names=["input"],
                                  output_names=["output"],
                                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}} if dynamic else None)
            session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            output = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        except Exception as error:
            lines = [line for line in str(error).splitlines() if line.strip()]
            return {"opset": opset, "error": f"export: {type(error).__name__}: {(lines or [''])[0][:200]}"}
        np.save(out / "output.npy", output)
        excess = float((np.abs(output - reference) - 1e-3 * np.maximum(1, np.abs(reference))).max())
        result = {"opset": opset, "export_seconds": time.monotonic() - start}
        if output.shape != reference.shape:
            result["error"] = f"onnxruntime gives {output.shape}, torch {reference.shape}"
        elif excess > 0:  # a deep net whose random weights make float32 sums diverge: still compared with onnxruntime
            result["note"] = f"onnxruntime vs torch: {float(np.abs(output - reference).max()):.2g} (max |ref| {float(np.abs(reference).max()):.3g})"
        return result

    exports = meta["exports"]
    exports["opset17"] = export("opset17", 17)
    exports["opset17_dynamic"] = export("opset17_dynamic", 17, dynamic=True)
    for opset in LOW_OPSETS:
        result = export("lowest", opset)
        if "error" not in result or not result["error"].startswith("export"):
            exports["lowest"] = result
            break
    else:
        exports["lowest"] = {"opset": 17, "error": "no opset below 17 exports"}
    exports["dynamo"] = export("dynamo", 18, dynamo=True)
    (folder / "meta.json").write_text(json.dumps(meta))


# ---------------------------------------------------------------- the sweep

def run(command, budget=STEP_BUDGET):
    """keras_sweep.run (exit status, seconds, peak MiB, last error line) with this sweep's budget."""
    sys.path.insert(0, str(ROOT / "scripts" / "verify"))
    from keras_sweep import run as timed
    return timed(command, budget)


def convert_and_compare(folder, export, work):
    """One export's row cell as a dict: status ok / wrong / refused / invalid / not exported."""
    import numpy as np
    if "error" in export:
        return {"status": "not exported", "error": export["error"]}
    onnx = folder / "model.onnx"
    output = folder / "model.mlmodel"
    output.unlink(missing_ok=True)
    status, seconds, peak, message = run([CONVERT, "onnx", onnx, "-q", "-o", output])
    row = {"seconds": seconds, "peak": peak}
    if status != 0:
        return dict(row, status="refused", error=message.replace(str(work) + "/", "").removeprefix("error: "))
    ours = folder / "ours"
    subprocess.run(["rm", "-rf", str(ours)], check=True)
    status, _, _, message = run([PREDICT, output, "--input", f"input={folder.parent / 'input.npy'}", "--output-npy", ours])
    if status != 0:
        return dict(row, status="wrong", error=f"predict: {message}")
    outputs = sorted(ours.glob("*.npy"))
    reference = np.load(folder / "output.npy").astype(np.float64).reshape(-1)
    if len(outputs) != 1:
        return dict(row, status="wrong", error=f"{len(outputs)} outputs")
    mine = np.load(outputs[0]).astype(np.float64).reshape(-1)
    if mine.size != reference.size:
        return dict(row, status="wrong", error=f"{mine.size} values, onnxruntime gives {reference.size}")
    worst = float(np.abs(mine - reference).max())
    row["difference"] = worst / max(float(np.abs(reference).max()), 1e-30)
    row["status"] = "ok" if bool((np.abs(mine - reference) <= 1e-4 * np.maximum(1, np.abs(reference))).all()) else "wrong"
    validator = os.environ.get("VALIDATOR")
    if validator:
        check = subprocess.run([validator, str(output)], capture_output=True, text=True)
        if check.returncode != 0:
            row["status"] = "invalid"
            row["error"] = "Apple's validator: " + (check.stdout + check.stderr).strip().splitlines()[-1][:200]
    return row


def short(text, limit=150):
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def cell(result):
    note = f" [{result['note']}]" if result.get("note") else ""
    if result["status"] == "ok":
        return f"ok ({result['difference']:.1e}){note}"
    return f"{result['status']}: {short(result.get('error', ''))}{note}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("models", nargs="*")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--export", action="store_true", help="(the worker) export the one model named")
    parser.add_argument("--skip-larger-than", type=float, default=None, metavar="N",
                        help="list models of more than N million parameters as skipped")
    parser.add_argument("--keep", action="store_true", help="keep the exported and converted files")
    parser.add_argument("--again", action="store_true", help="convert again the models an earlier run has a row for")
    args = parser.parse_args()
    args.work = args.work.resolve()
    if args.export:
        export_model(args.work, args.models[0], args.skip_larger_than)
        return 0
    if "TOOLKIT_BIN" not in os.environ:
        subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True, capture_output=True)
    baseline = run([CONVERT, "--version"])[2]  # MiB: the program's own peak, loaded and idle
    rows, failed, counts = [], False, {}
    for name in args.models or sweep_models():
        folder = args.work / name
        if (folder / "row.json").exists() and not args.again:  # a model done by an earlier run
            row = json.loads((folder / "row.json").read_text())
            rows.append(row["cells"])
            for status in row["statuses"]:
                counts[status] = counts.get(status, 0) + 1
                failed = failed or status in ("wrong", "invalid")
            print(" | ".join(rows[-1]), "(earlier run)", flush=True)
            continue
        meta_path = folder / "meta.json"
        if meta_path.exists() and json.loads(meta_path.read_text()).get("skipped") and not (
                args.skip_larger_than and json.loads(meta_path.read_text())["parameters"] > args.skip_larger_than * 1e6):
            meta_path.unlink()  # skipped by an earlier run's limit, not by this one's
        if not meta_path.exists():
            limit = ["--skip-larger-than", str(args.skip_larger_than)] if args.skip_larger_than else []
            status, _, _, message = run([sys.executable, __file__, args.work, name, "--export", *limit], budget=EXPORT_BUDGET)
            if status != 0 or not (folder / "meta.json").exists():
                rows.append([name, "-", "-", f"not made: {short(message)}", "", "", "", "", ""])
                print(" | ".join(rows[-1]), flush=True)
                continue
        meta = json.loads((folder / "meta.json").read_text())
        if "error" in meta:
            rows.append([name, f"{meta['parameters']:,}", "-", meta["error"], "", "", "", "", ""])
            print(" | ".join(rows[-1]), flush=True)
            continue
        if meta.get("skipped"):
            rows.append([name, f"{meta['parameters']:,}", "-", f"skipped (over {args.skip_larger_than:g}M parameters)", "", "", "", "", ""])
            print(" | ".join(rows[-1]), flush=True)
            continue
        results = {label: dict(convert_and_compare(folder / label, meta["exports"][label], args.work),
                               **({"note": meta["exports"][label]["note"]} if "note" in meta["exports"][label] else {}))
                   for label, _ in COLUMNS}
        for result in results.values():
            counts[result["status"]] = counts.get(result["status"], 0) + 1
            failed = failed or result["status"] in ("wrong", "invalid")
        main_result = results["opset17"]
        seconds = f"{main_result['seconds']:.2f}" if "seconds" in main_result else ""
        # The multiple of the weights the conversion itself takes: the peak above the program's own (`--version`'s).
        peak = (f"{main_result['peak']} ({(main_result['peak'] - baseline) * 2**20 / meta['weight_bytes']:.2f}x)"
                if main_result.get("peak") else "")
        lowest = meta["exports"]["lowest"]["opset"]
        rows.append([name, f"{meta['parameters']:,}", str(meta["size"])] + [cell(results[label]) for label, _ in COLUMNS[:2]]
                    + [f"{lowest}: {cell(results['lowest'])}", cell(results["dynamo"]), seconds, peak])
        print(" | ".join(rows[-1]), flush=True)
        (folder / "row.json").write_text(json.dumps({"cells": rows[-1], "statuses": [r["status"] for r in results.values()]}))
        if not args.keep:  # the files, not the row: up to 10 GB a model (vit_h_14)
            for path in folder.rglob("*"):
                if path.is_file() and path.suffix in (".onnx", ".data", ".mlmodel") or path.name.startswith("model.onnx"):
                    path.unlink()
    header = (["model", "parameters", "input"] + [title for _, title in COLUMNS]
              + ["convert s (opset 17)", f"peak MiB (above the program's {baseline} MiB, x weights)"])
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(row) + " |" for row in rows]
    summary = (f"{len(rows)} models; conversions: " + ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
               + ".")
    print(summary)
    if args.markdown:
        args.markdown.write_text("\n".join(table) + "\n\n" + summary + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
