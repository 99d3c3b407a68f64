"""Process start-up cost of the command line (run by hand).

- Paired against ``python -c "import pygit2"`` (the yardstick: what any pygit2 program
  pays before it does anything), each run of a command next to one of the yardstick,
  A B A B ... (which of the two goes first alternates), and the ratio taken pair by
  pair, so that a machine whose speed drifts moves both sides alike.  The commands, in
  scratch repositories (the user's git configuration and policy cache shut out):
  ``git agent-apply FILE`` on a one-hunk patch (a real apply: the patch and its reverse
  alternate, so every run reads, locates, checks, writes and records a turn),
  ``git agent-apply --check FILE``, ``agent-guard hook claude-code`` with a PreToolUse
  Edit payload on standard input (an edit that passes) and ``agent-guard check`` on a
  staged one-line change.  Wall time and CPU time (user + system of the whole process
  tree: ``git`` and the program it runs) per run; per command, the median ratio with
  its spread (quartiles, min-max).  With ``--cold`` the policy cache is emptied before
  each run of a command (a first run: a fresh machine, CI, a new HOME), so each run
  parses its policies.
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

    python bench/startup.py [--pairs 31] [--runs 21] [--top 25] [--only paired|help] [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WATCH = ("pygit2", "yaml", "charset_normalizer", "unidiff", "click", "guard.pipeline.engine", "guard.repo", "guard.policy")


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_", "PRE_COMMIT"))}
    e.update(GIT_ENV)
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
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=cwd, env=environ, capture_output=True, timeout=60, check=False
    )
    rows = []
    for line in proc.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum, name = line[len("import time:") :].split("|", 2)
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


# ---------------------------------------------------------------------- paired with import pygit2

YARDSTICK = "python -c 'import pygit2'"
FLOOR = (
    "import pygit2, click\n"
    "from dataclasses import dataclass\n"
    "for i in range(49):\n"
    "    exec(f'@dataclass(frozen=True, slots=True)\\nclass C{i}:\\n'\n"
    "         '    a: int\\n    b: str\\n    c: tuple = ()\\n    d: int = 0\\n')\n"
)


def _scratch_repo(path: Path, environ: dict[str, str]) -> None:
    """A repository with one committed 200-function Python file, a.py (600 lines)."""
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60, env=environ)
    (path / "a.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200)))
    (path / "b.py").write_text("".join(f"B{i} = {i}\n" for i in range(100)))
    subprocess.run(["git", "add", "a.py", "b.py"], cwd=path, check=True, timeout=60, env=environ)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True, timeout=60, env=environ)


def _one_hunk(path: Path, environ: dict[str, str]) -> tuple[bytes, bytes]:
    """A one-hunk patch of a.py (as git writes it) and its reverse; a.py is left as committed."""
    a = path / "a.py"
    before = a.read_bytes()
    a.write_bytes(before.replace(b"    return x + 100\n", b"    return x + 100 + 1\n"))
    fwd = subprocess.run(["git", "diff"], cwd=path, check=True, timeout=60, env=environ, capture_output=True).stdout
    rev = subprocess.run(["git", "diff", "-R"], cwd=path, check=True, timeout=60, env=environ, capture_output=True).stdout
    a.write_bytes(before)
    return fwd, rev


class Cmd:
    """A command of the paired runs: its argv (the run number may choose it), folder and standard input."""

    def __init__(
        self, label: str, argv: list[str] | None, cwd: Path, stdin: bytes = b"", alternate: list[str] | None = None
    ) -> None:
        self.label, self.argv, self.cwd, self.stdin, self.alternate = label, argv, cwd, stdin, alternate
        self.count = 0

    def next_argv(self) -> list[str]:
        assert self.argv is not None
        argv = self.alternate if self.alternate is not None and self.count % 2 else self.argv
        self.count += 1
        return argv


def timed(cmd: Cmd, environ: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of `cmd`: CPU is user + system of every process it waited for."""
    argv = cmd.next_argv()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cmd.cwd, env=environ, input=cmd.stdin, capture_output=True, timeout=60, check=False)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} exited {proc.returncode}: {(proc.stdout + proc.stderr).decode(errors='replace')[:800]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dt, cpu


def quartiles(values: list[float]) -> tuple[float, float, float, float, float]:
    """min, first quartile, median, third quartile, max."""
    s = sorted(values)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    return s[0], q[0], q[1], q[2], s[-1]


def paired(pairs: int, warmups: int, environ: dict[str, str], work: Path, cold: bool = False) -> None:
    home = work / "home"  # the policy cache (~/.cache/agent-guard) lives here: the warm-ups fill it
    home.mkdir(parents=True)
    environ = dict(environ, HOME=str(home))
    environ.pop("XDG_CACHE_HOME", None)
    applied, quiet = work / "apply", work / "quiet"
    for repo in (applied, quiet):
        _scratch_repo(repo, environ)
    fwd, rev = _one_hunk(applied, environ)
    (work / "fwd.patch").write_bytes(fwd)
    (work / "rev.patch").write_bytes(rev)
    # The staged one-line change that `check` reads; a.py stays as committed for the others.
    b = quiet / "b.py"
    b.write_bytes(b.read_bytes().replace(b"B50 = 50\n", b"B50 = 5000\n"))
    subprocess.run(["git", "add", "b.py"], cwd=quiet, check=True, timeout=60, env=environ)
    payload = json.dumps(
        {
            "session_id": "bench",
            "transcript_path": str(work / "transcript.jsonl"),
            "cwd": str(quiet),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_use_id": "toolu_bench",
            "tool_input": {
                "file_path": str(quiet / "a.py"),
                "old_string": "    return x + 100\n",
                "new_string": "    return x + 100 + 1\n",
            },
        }
    ).encode()
    guard_bin = str(BIN / "agent-guard")
    yardstick = Cmd(YARDSTICK, [sys.executable, "-c", "import pygit2"], work)
    cmds = [
        Cmd(
            "git agent-apply FILE  (applies; patch, reverse, ...)",
            ["git", "agent-apply", str(work / "fwd.patch")],
            applied,
            alternate=["git", "agent-apply", str(work / "rev.patch")],
        ),
        Cmd("git agent-apply --check FILE", ["git", "agent-apply", "--check", str(work / "fwd.patch")], quiet),
        Cmd("agent-guard hook claude-code  (PreToolUse Edit)", [guard_bin, "hook", "claude-code"], quiet, stdin=payload),
        Cmd("agent-guard check  (a staged one-line change)", [guard_bin, "check"], quiet),
        # The floor of issue 38's means (click, frozen slotted dataclasses): what a program that
        # imports only those, and defines as many records as an apply does, costs before any work.
        Cmd("floor: import pygit2, click + 49 frozen slotted dataclasses", [sys.executable, "-c", FLOOR], work),
    ]
    print(
        f"\nPaired with {YARDSTICK}: {pairs} pairs per command (+{warmups} warm-up pairs), "
        "A B A B ..., which goes first alternating; commands taken in turn"
        + ("; the policy cache emptied before each run of A" if cold else "")
    )
    walls: dict[str, list[tuple[float, float]]] = {c.label: [] for c in cmds}
    cpus: dict[str, list[tuple[float, float]]] = {c.label: [] for c in cmds}
    for r in range(warmups + pairs):
        for c in cmds:
            runs = [(c, None), (yardstick, None)]
            if r % 2:
                runs.reverse()
            got = {}
            for x, _ in runs:
                if cold and x is not yardstick:
                    shutil.rmtree(home / ".cache", ignore_errors=True)  # parsed policies: parse again
                got[id(x)] = timed(x, environ)
            if r >= warmups:
                (wa, ca), (wb, cb) = got[id(c)], got[id(yardstick)]
                walls[c.label].append((wa, wb))
                cpus[c.label].append((ca, cb))
    print(f"\n{'command (A; B is the yardstick)':<52} {'A ms':>7} {'B ms':>7}  ratio A/B: median (quartiles; min-max)")
    for kind, table in (("wall", walls), ("CPU", cpus)):
        print(f"{kind}:")
        for label, rows in table.items():
            a = statistics.median(x for x, _ in rows) * 1000
            b = statistics.median(y for _, y in rows) * 1000
            lo, q1, med, q3, hi = quartiles([x / y for x, y in rows])
            print(f"  {label:<50} {a:7.1f} {b:7.1f}  {med:.2f}x ({q1:.2f}-{q3:.2f}; {lo:.2f}-{hi:.2f})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=31, help="pairs per command for the paired ratios")
    ap.add_argument("--warmups", type=int, default=2, help="warm-up pairs per command, not counted")
    ap.add_argument("--runs", type=int, default=21, help="runs per command of the help/version table")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--only", choices=("paired", "help"), default=None, help="one of the two parts")
    ap.add_argument("--cold", action="store_true", help="paired runs with the policy cache emptied before each command")
    args = ap.parse_args()
    e = env()
    top = Path(tempfile.mkdtemp(prefix="ag-startup-"))
    try:
        print(
            f"Python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} CPUs; load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        if args.only != "help":
            paired(args.pairs, args.warmups, e, top / "paired", cold=args.cold)
            print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if args.only == "paired":
            return 0
        work = top / "empty"
        subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=60, env=e)
        print(f"\n{args.runs} runs each (+2 warm-ups); cwd: an empty git repository")
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
        print(
            f"compiling those {count} source files (no bytecode cache, e.g. PYTHONDONTWRITEBYTECODE=1 with no "
            f"__pycache__): {secs * 1000:.1f} ms"
        )
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
