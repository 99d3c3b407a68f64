"""Process start-up cost of the command line (run by hand).

- Wall time (median of N) of ``python -c pass`` (the floor), ``agent-guard --version``,
  ``agent-guard --help`` and ``git agent-apply -h``, calling the console scripts
  next to this interpreter (and, when ``agent-guard`` on PATH is something else,
  such as a pyenv shim, that too, to show what the shim costs).
- ``python -X importtime -m guard --help``: the top modules by cumulative import
  time, every guard module imported, and whether pygit2, yaml, charset_normalizer and
  unidiff are imported for ``--help`` (with the chain of imports that pulled each in).
- What compiling guard's own sources costs when no bytecode cache can be written
  (``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__``).

Bytecode is cached under $TMPDIR/agent-guard-bench-pycache (PYTHONPYCACHEPREFIX), as
a normal install would cache it, without writing into the source tree.

    python bench/startup.py [--runs 21] [--top 25]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WATCH = ("pygit2", "yaml", "charset_normalizer", "unidiff", "click", "guard.engine", "guard.repo", "guard.policy")


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_GUARD_")}
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    e["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    e["PATH"] = str(BIN) + os.pathsep + e.get("PATH", "")
    return e


def wall(cmd: list[str], runs: int, cwd: Path, environ: dict[str, str]) -> tuple[float, float]:
    times = []
    for i in range(runs + 2):  # two warm-ups (the first may write bytecode)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=environ, capture_output=True, timeout=60, check=False)
        dt = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:500]}")
        if i >= 2:
            times.append(dt)
    s = sorted(times)
    return statistics.median(s), s[min(len(s) - 1, round(0.9 * (len(s) - 1)))]


def importtime(args: list[str], cwd: Path, environ: dict[str, str]) -> list[tuple[int, int, int, str]]:
    """(self us, cumulative us, depth, module) per import line, in the order printed."""
    subprocess.run([sys.executable, *args], cwd=cwd, env=environ, capture_output=True, timeout=60, check=False)
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=cwd, env=environ, capture_output=True,
                          timeout=60, check=False)
    rows = []
    for line in proc.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum, name = line[len("import time:"):].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2  # "| " then two spaces per level
        rows.append((int(self_us), int(cum), depth, name.strip()))
    return rows


def parents(rows: list[tuple[int, int, int, str]]) -> dict[str, str | None]:
    """Who imported whom: a module's parent is the next line printed one level up."""
    out: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for _, _, depth, name in reversed(rows):
        while stack and stack[-1][0] >= depth:
            stack.pop()
        out.setdefault(name, stack[-1][1] if stack else None)
        stack.append((depth, name))
    return out


def chain(name: str, up: dict[str, str | None]) -> str:
    links = [name]
    seen = {name}
    cur = up.get(name)
    while cur is not None and cur not in seen:
        links.append(cur)
        seen.add(cur)
        cur = up.get(cur)
    return " <- ".join(links)


def compile_cost(modules: list[str]) -> tuple[int, float]:
    """Seconds to compile the sources of the given guard modules (what no bytecode cache costs)."""
    total = 0.0
    count = 0
    for mod in modules:
        rel = Path(*mod.split("."))
        for cand in (ROOT / rel.with_suffix(".py"), ROOT / rel / "__init__.py"):
            if cand.is_file():
                src = cand.read_bytes()
                t0 = time.perf_counter()
                compile(src, str(cand), "exec", dont_inherit=True, optimize=0)
                total += time.perf_counter() - t0
                count += 1
                break
    return count, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    e = env()
    work = Path(tempfile.mkdtemp(prefix="ag-startup-"))
    try:
        subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=60, env=e)
        print(f"Python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} CPUs; load average "
              f"{os.getloadavg()[0]:.2f}; {args.runs} runs each (+2 warm-ups); cwd: an empty git repository")
        cmds: list[tuple[str, list[str], dict[str, str]]] = [
            ("python -c pass  (floor)", [sys.executable, "-c", "pass"], e),
            ("python -c 'import guard.cli.commands'", [sys.executable, "-c", "import guard.cli.commands"], e),
            ("agent-guard --version", [str(BIN / "agent-guard"), "--version"], e),
            ("agent-guard --help", [str(BIN / "agent-guard"), "--help"], e),
            ("git agent-apply -h  (git turns --help into man)", ["git", "agent-apply", "-h"], e),
        ]
        on_path = shutil.which("agent-guard")
        if on_path and Path(on_path).resolve() != (BIN / "agent-guard").resolve():
            shim_env = dict(e)
            shim_env["PATH"] = os.environ.get("PATH", "")
            cmds.append((f"agent-guard --version via {on_path}", [on_path, "--version"], shim_env))
        print(f"\n{'command':<58} median ms    p90 ms")
        for label, cmd, environ in cmds:
            med, p90 = wall(cmd, args.runs, work, environ)
            print(f"{label:<58} {med * 1000:9.1f} {p90 * 1000:9.1f}")

        rows = importtime(["-m", "guard", "--help"], work, e)
        up = parents(rows)
        total = sum(r[0] for r in rows)
        print(f"\npython -X importtime -m guard --help: {len(rows)} modules, {total / 1000:.1f} ms of imports in all")
        print(f"top {args.top} by cumulative time (ms, self ms, module <- imported by):")
        for self_us, cum, _, name in sorted(rows, key=lambda r: -r[1])[: args.top]:
            print(f"  {cum / 1000:8.1f} {self_us / 1000:8.1f}  {name}" + (f"  <- {up[name]}" if up.get(name) else ""))
        names = {r[3] for r in rows}
        print("\nlazy for --help? (a module imported here is not)")
        for w in WATCH:
            if w in names:
                cum = next(r[1] for r in rows if r[3] == w)
                print(f"  {w:<20} IMPORTED ({cum / 1000:.1f} ms cumulative): {chain(w, up)}")
            else:
                print(f"  {w:<20} not imported")
        guard_mods = sorted(n for n in names if n == "guard" or n.startswith("guard."))
        print(f"\nguard modules imported for --help ({len(guard_mods)}): {', '.join(guard_mods)}")
        count, secs = compile_cost(guard_mods)
        print(f"compiling those {count} source files (no bytecode cache, e.g. PYTHONDONTWRITEBYTECODE=1 with no "
              f"__pycache__): {secs * 1000:.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
