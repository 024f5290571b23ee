#!/usr/bin/env python3
"""Benchmark: an ML Program conversion (`--convert-to mlprogram`, an .mlpackage)
against the NeuralNetwork conversion (.mlmodel) of the same model, at float32
and at float16 weights (issue 36: within 2x the time, peak memory under 1.5x
the weight bytes).

  swift build -c release
  .venv/bin/python scripts/bench/program_conversion.py --convert .build/release/coreml-convert

Model: Inception-ResNet-v2's frozen graph from make_inception_resnet_v2.py
(--irv2-dir, default /tmp/tfx/irv2; made there when absent, ~10 minutes), the
options of its meta.json (convert_speed.py's command). It is copied first
into the work folder with `cp`, so that its pages in the cache are ones a
plain read makes (a file TensorFlow has just written can sit in the cache in
large folios, which a mapping then counts whole in the peak RSS).

In one run: one untimed conversion of each kind, then --runs rounds, each
converting to a new output in this order: NeuralNetwork float32, program
float32, NeuralNetwork float16 (--precision float16), program float16 (the
default compute precision), and compressed: 8-bit linear, 4-bit k-means
tables and 4-bit linear (the program's: iOS 18's int4 per block of 32), each
as a NeuralNetwork and as a program (--quantize-weights; the program's
float16 compute), the output deleted (untimed) before each.
Wall time around the child, CPU time and peak RSS from /usr/bin/time.
Prints medians (minimums) and ratios, and replaces the program_conversion
section of BENCHMARKS.md (--no-markdown: print only).
"""

import argparse
import datetime
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import git_revision, machine, mib, plain_copy, write_block

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from convert_speed import irv2_command  # noqa: E402

KINDS = [("NeuralNetwork float32", [], ".mlmodel"),
         ("ML Program float32", ["--convert-to", "mlprogram", "--compute-precision", "float32"], ".mlpackage"),
         ("NeuralNetwork float16", ["--precision", "float16"], ".mlmodel"),
         ("ML Program float16", ["--convert-to", "mlprogram"], ".mlpackage"),
         # Compressed weights: the NeuralNetwork's quantized layers against the program's constexpr constants.
         ("NeuralNetwork 8-bit linear", ["--quantize-weights", "8"], ".mlmodel"),
         ("ML Program 8-bit linear", ["--convert-to", "mlprogram", "--quantize-weights", "8"], ".mlpackage"),
         ("NeuralNetwork 4-bit k-means", ["--quantize-weights", "4", "--quantization", "kmeans-lut"], ".mlmodel"),
         ("ML Program 4-bit k-means", ["--convert-to", "mlprogram", "--quantize-weights", "4", "--quantization", "kmeans-lut"], ".mlpackage"),
         # iOS 18's blockwise form (int4, a scale per 32 input values) against the NeuralNetwork's 4-bit linear per channel.
         ("NeuralNetwork 4-bit linear", ["--quantize-weights", "4"], ".mlmodel"),
         ("ML Program 4-bit linear", ["--convert-to", "mlprogram", "--quantize-weights", "4", "--quantization", "linear-symmetric",
                                      "--block-size", "32"], ".mlpackage")]


def timed(command):
    """(wall seconds, CPU seconds, peak RSS KiB) of one run of `command`."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *command], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"program_conversion: {' '.join(command)} failed:\n{result.stderr}")
    user, system, peak = result.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(peak)


def remove(path):
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--convert", required=True, help="the release coreml-convert")
    parser.add_argument("--irv2-dir", default="/tmp/tfx/irv2")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-markdown", action="store_true")
    args = parser.parse_args()
    source = Path(args.irv2_dir)
    if not (source / "inception_resnet_v2.pb").exists():
        subprocess.run([sys.executable, str(HERE / "make_inception_resnet_v2.py"), str(source)], check=True)
    host = machine(load=True)
    with tempfile.TemporaryDirectory(prefix="program_conversion.") as folder:
        work = Path(folder)
        plain_copy(source, work, ["inception_resnet_v2.pb", "meta.json", "imagenet_slim_labels.txt"])
        weight_bytes = (work / "inception_resnet_v2.pb").stat().st_size
        commands = {}
        for label, options, suffix in KINDS:
            output = work / f"out{suffix}"
            command = irv2_command(args.convert, work, output)
            commands[label] = (command[:-2] + options + ["-q"] + command[-2:], output)
        figures = {label: [] for label, _, _ in KINDS}
        for round_number in range(args.runs + 1):
            for label, (command, output) in commands.items():
                remove(output)
                figure = timed(command)
                if round_number > 0:
                    figures[label].append(figure)
            print(f"round {round_number}/{args.runs}", flush=True)
    rows = []
    for label, _, _ in KINDS:
        runs = figures[label]
        rows.append((label, statistics.median(r[0] for r in runs), min(r[0] for r in runs),
                     statistics.median(r[1] for r in runs), max(r[2] for r in runs)))
    by_label = {row[0]: row for row in rows}
    lines = ["| conversion | wall s, median (min) | CPU s, median | peak RSS | peak / weight bytes | time / NeuralNetwork's |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, wall, fastest, cpu, peak in rows:
        peer = by_label[label.replace("ML Program", "NeuralNetwork")]
        ratio = f"{wall / peer[1]:.2f}x" if label.startswith("ML Program") else "—"
        lines.append(f"| {label} | {wall:.2f} ({fastest:.2f}) | {cpu:.2f} | {mib(peak)} | {peak * 1024 / weight_bytes:.2f}x | {ratio} |")
    table = "\n".join(lines)
    verdicts = []
    for precision in ["float32", "float16"]:
        program, network = by_label[f"ML Program {precision}"], by_label[f"NeuralNetwork {precision}"]
        verdicts.append(f"- {precision}: {program[1] / network[1]:.2f}x the NeuralNetwork conversion's time (goal <= 2x): "
                        f"{'met' if program[1] <= 2 * network[1] else 'NOT met'}; peak {program[4] * 1024 / weight_bytes:.2f}x "
                        f"the weight bytes (goal < 1.5x): {'met' if program[4] * 1024 < 1.5 * weight_bytes else 'NOT met'}")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    block = f"""<!-- BEGIN program_conversion (generated by scripts/bench/program_conversion.py) -->
## ML Program conversion

Measured {stamp} on {host} (a shared, noisy VM: the ratios, from
alternating runs in one run, say more than the times), the repository at
{git_revision()}, `{Path(args.convert).name}` a release build (`swift build -c release`; both kinds of
conversion are the same binary). Inception-ResNet-v2's frozen
graph ({weight_bytes / 1e6:.1f} MB of weights), {args.runs} rounds after an untimed one, each
converting to a new output: NeuralNetwork float32, ML Program float32,
NeuralNetwork float16, ML Program float16, then compressed weights
(`--quantize-weights 8`, `--quantize-weights 4 --quantization kmeans-lut`,
`--quantize-weights 4`: the program's as iOS 18's int4 levels with a scale
per block of 32 input values, `--quantization linear-symmetric --block-size 32`)
as a NeuralNetwork and as a program (a new output is left to the
system's write-back in both formats; one that replaces another is synced).

{table}

Goals (issue 36):
{chr(10).join(verdicts)}

Command (the options of convert_speed.py's Inception-ResNet-v2 line, then the kind's):
`{' '.join(commands['ML Program float16'][0][1:])}`
<!-- END program_conversion -->"""
    print(table)
    print("\n".join(verdicts))
    if not args.no_markdown:
        write_block("<!-- BEGIN program_conversion", "<!-- END program_conversion -->", block)


if __name__ == "__main__":
    main()
