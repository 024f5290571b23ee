"""What the benchmark scripts share: the machine's description, the
revision measured, MiB formatting, and their sections of BENCHMARKS.md."""

import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN = ROOT / "BENCHMARKS.md"

# The release build every benchmark measures: the one the README's "Install"
# section gives, with the Swift runtime linked in (self-contained programs
# that start a few milliseconds sooner than dynamically linked ones).
RELEASE_BUILD = "swift build -c release --static-swift-stdlib"


def machine(load=False):
    """nproc, CPU model and kernel (and the 1-minute load average)."""
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    text = f"nproc {os.cpu_count()}, {cpu}, {platform.system()} {platform.release()}"
    return text + (f", load average {os.getloadavg()[0]:.2f}" if load else "")


def git_revision():
    """HEAD's short hash, noting uncommitted changes to what gets built."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=ROOT).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "Sources", "Package.swift"],
                               capture_output=True, text=True, cwd=ROOT).stdout.strip()
        return (head or "?") + (" plus uncommitted changes in Sources/" if dirty else "")
    except OSError:
        return "?"


def mib(kib):
    return f"{kib / 1024:.0f} MiB"


def replace_block(text, begin, end, block, after_title=False):
    """`text` with everything from `begin` through `end` replaced by `block`
    (which starts with `begin` and ends with `end`); when absent, the block
    goes after the title line (`after_title`) or at the end."""
    block = block.strip("\n")
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        return head + block + rest.split(end, 1)[1]
    if after_title and text.startswith("# "):
        title, _, rest = text.partition("\n")
        return f"{title}\n\n{block}\n\n{rest.lstrip(chr(10))}"
    return text.rstrip("\n") + "\n\n" + block + "\n"


def write_block(begin, end, block, after_title=False):
    """Replaces (or adds) one section of BENCHMARKS.md; the others are kept."""
    text = MARKDOWN.read_text() if MARKDOWN.exists() else "# Benchmarks\n"
    MARKDOWN.write_text(replace_block(text, begin, end, block, after_title))
    print(f"wrote {MARKDOWN.relative_to(ROOT)}")


def plain_copy(source, into, names):
    """The files NAMES of folder SOURCE (those that exist) copied with `cp` into folder INTO, which is returned: their
    pages in the cache are then ones a plain read makes. A file TensorFlow or a writer here has just written can sit
    in the cache in large folios, which a mapping of it then counts whole in the peak RSS (Inception-ResNet-v2's
    conversion peaked at 212 MB right after make_inception_resnet_v2.py wrote the graph, 53 MB on a copy)."""
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        if (Path(source) / name).exists():
            subprocess.run(["cp", str(Path(source) / name), str(into / name)], check=True)
    return into
