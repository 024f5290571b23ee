#!/usr/bin/env python3
"""Rewrites COVERAGE.md's attribute-sweep section from a run of the sweep tests.

    scripts/sweep_table.py            # runs swift test --filter AttributeSweepTests

The tests (Tests/*FrontendTests/*AttributeSweepTests.swift, via
Tests/SweepSupport) write one table per frontend into a scratch folder
(ATTRIBUTE_SWEEP_REPORT); this script puts them, with their counts, between
the markers in COVERAGE.md. Every row is a case the framework itself made:
converted and within 1e-4 * max(1, |ref|) of the framework ("honoured"), or
refused with one error line naming the attribute. A WRONG row fails the test.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- attribute sweep: begin -->", "<!-- attribute sweep: end -->"
ORDER = ["caffe", "tensorflow", "keras", "onnx", "darknet"]


def main() -> int:
    with tempfile.TemporaryDirectory() as report:
        env = dict(os.environ, ATTRIBUTE_SWEEP_REPORT=report)
        run = subprocess.run(["swift", "test", "--disable-swift-testing", "--filter", "AttributeSweepTests"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        summaries = [line.strip() for line in run.stdout.splitlines() if line.startswith("attribute sweep ")]
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-2000:])
            print("sweep_table: the sweep tests failed; COVERAGE.md left as it was", file=sys.stderr)
            return 1
        tables = {p.stem: p.read_text() for p in Path(report).glob("*.md")}
    parts = [BEGIN, ""]
    totals = [0, 0, 0]
    for line in summaries:
        m = re.search(r"(\d+) cases, (\d+) honoured, (\d+) refused", line)
        if m:
            for i in range(3):
                totals[i] += int(m.group(i + 1))
    parts.append(f"{totals[0]} cases: {totals[1]} honoured, {totals[2]} refused, 0 wrong.")
    parts.append("")
    # The tests run in parallel: their lines come in any order, written in ORDER's.
    def rank(line):
        m = re.match(r"attribute sweep (\w+)", line)
        return ORDER.index(m.group(1)) if m and m.group(1) in ORDER else len(ORDER)
    for line in sorted(summaries, key=rank):
        parts.append(f"- {line}")
    for name in sorted(tables, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER)):
        parts += ["", f"### {name}", "", tables[name].rstrip()]
    parts += ["", END]
    coverage = ROOT / "COVERAGE.md"
    text = coverage.read_text()
    block = "\n".join(parts)
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    coverage.write_text(text)
    print("\n".join(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
