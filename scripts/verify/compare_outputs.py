#!/usr/bin/env python3
"""Compares the runtime's outputs with a reference (TensorFlow's, OpenCV's),
for the scripts in scripts/verify. Each pair is OURS.npy=REF.npy, or OURS.npy=REF.npy@H,W,C
when the reference is an [H, W, C] map (ours is [C, H, W]). A pair passes
when |ours - ref| <= 1e-4 * max(1, |ref|) everywhere and the largest
difference is at most 1e-4 of the reference's largest |value| (random
weights give near-uniform softmaxes: the second test is the strict one).
Exit status 1 when any pair fails. --float16-bound T (before the pairs), for
a program computing in float16: one norm-wise test instead,
max |ours - ref| <= T * max(1, max |ref|) (run_mlprogram_torch.py states why).

  compare_outputs.py ours/Identity.npy=output.npy ours/x_Relu.npy=output_block.npy@35,35,320
"""
import sys

import numpy as np


def compare(ours_path, ref_path, hwc, float16_bound=None):
    try:
        ours = np.load(ours_path).astype(np.float64).reshape(-1)
        ref = np.load(ref_path).astype(np.float64)
    except OSError as error:
        print(f"{ours_path}: {error}: FAILED")
        return False
    ref = (np.transpose(ref.reshape(hwc), (2, 0, 1)) if hwc else ref).reshape(-1)
    if ours.size != ref.size:
        print(f"{ours_path}: {ours.size} values, {ref_path} has {ref.size}: FAILED")
        return False
    worst = float(np.abs(ours - ref).max())
    if float16_bound is not None:
        ok = worst <= float16_bound * max(1.0, float(np.abs(ref).max()))
    else:
        ok = bool((np.abs(ours - ref) <= 1e-4 * np.maximum(1, np.abs(ref))).all()) and worst <= 1e-4 * np.abs(ref).max()
    print(f"{ours_path}: {ours.size} values, max |ours - ref| {worst:.3g}, relative to max |ref| "
          f"{worst / np.abs(ref).max():.3g}: {'ok' if ok else 'FAILED'}")
    return ok


def main():
    results = []
    pairs, float16_bound = sys.argv[1:], None
    if pairs[:1] == ["--float16-bound"]:
        float16_bound, pairs = float(pairs[1]), pairs[2:]
    for pair in pairs:
        ours, ref = pair.split("=", 1)
        ref, _, shape = ref.partition("@")
        results.append(compare(ours, ref, tuple(int(n) for n in shape.split(",")) if shape else None, float16_bound))
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
