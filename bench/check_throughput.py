"""Throughput of all checks together, in-process (run by hand).

Builds 200,000 added lines of real code (Python standard library files, joined; or
C headers with --lang c) and times ``checks.run`` over them under the presets
`default` (whitespace fix) and `strict` (every check an error), as one new file and
as 20 files of 10,000 lines.  Reports MB/s of new content (target >= 20 MB/s), by CPU time and by wall time.

    python bench/check_throughput.py [--lines 200000] [--lang py|c] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard import checks  # noqa: E402
from guard.checks import CheckInput, Usage, no_attr  # noqa: E402
from guard.model import FileChange, Op  # noqa: E402
from guard.policy import load  # noqa: E402
from guard.tree.diffs import make_change  # noqa: E402


def source_files(lang: str) -> Iterator[Path]:
    if lang == "py":
        top = Path(sysconfig.get_paths()["stdlib"])
        suffixes: tuple[str, ...] = (".py",)
    else:
        top = Path("/usr/include")
        suffixes = (".h",)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "dist-packages"))
        for f in sorted(filenames):
            if f.endswith(suffixes):
                yield Path(dirpath) / f


def corpus(lines: int, lang: str) -> list[str]:
    out: list[str] = []
    for path in source_files(lang):
        try:
            out.extend(path.read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError):
            continue
        if len(out) >= lines:
            break
    return out[:lines]


def as_changes(lines: list[str], files: int, suffix: str) -> tuple[FileChange, ...]:
    per = len(lines) // files
    changes = []
    for k in range(files):
        text = "\n".join(lines[k * per : (k + 1) * per]) + "\n"
        changes.append(make_change(f"src/f{k}{suffix}", Op.CREATE, None, text.encode(), new_mode=0o100644))
    return tuple(changes)


def measure(changes: tuple[FileChange, ...], preset: str, repeat: int) -> tuple[float, float, int, int]:
    """(MB/s by CPU time, MB/s by wall time, bytes, findings), best of `repeat` runs.

    CPU time is the number to compare: it does not move when other processes share the machine.
    """
    policy = load(None, preset)
    inp = CheckInput(changes, policy, lambda _p: True, no_attr, None, Usage(), edit_bytes=1000)
    size = sum(len(c.after or b"") for c in changes)
    cpu = wall = float("inf")
    result = checks.run(inp)
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = checks.run(inp)
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return size / cpu / 1e6, size / wall / 1e6, size, len(result.findings)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--lang", choices=("py", "c"), default="py")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    lines = corpus(args.lines, args.lang)
    suffix = ".py" if args.lang == "py" else ".h"
    print(f"{len(lines):,} added lines of {'Python' if args.lang == 'py' else 'C'}; best of {args.repeat} runs")
    for files in (1, 20):
        changes = as_changes(lines, files, suffix)
        for preset in ("default", "strict"):
            cpu, wall, size, found = measure(changes, preset, args.repeat)
            print(
                f"  {files:>2} file(s), preset {preset:<8} {size / 1e6:6.2f} MB  {cpu:7.1f} MB/s CPU "
                f"{wall:7.1f} MB/s wall  ({found} findings)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
