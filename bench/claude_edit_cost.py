"""What agent-guard's hooks add to each Edit (or Bash call) in the real Claude Code (run by hand).

Claude Code ``claude_harness.VERSION`` (from the harness's cache; installed there with npm the
first time) runs headless against the scripted model of ``tests/adapters/anthropic_fake.py``,
which answers at once: a run is one prompt, the model reads a file and then makes N Edits, one
per message (``--kind edit``), or makes N read-only Bash calls in a repository of ``--files``
files (``--kind bash``).  Each Edit and each Bash call runs the PreToolUse and the PostToolUse
hook.  The hook forms, each in a repository, a home and a runtime folder of its own:

- ``none``: no hooks;
- ``noop``: a command hook that does nothing (``true``) for both events: Claude Code's own cost of
  running a command hook;
- ``pyfloor``: a command hook that starts this interpreter as the warm client does and does
  nothing (``python -SI -c pass``): the floor of any command hook written in Python;
- ``default``: what `agent-guard install claude-code` writes (``hook.py --start-server``); a
  warm-up run before the rounds has its first call start the server, so the rounds measure from
  the second call on (the warm-up's own time is printed);
- ``cold``: `agent-guard install claude-code --cold` (`agent-guard hook claude-code`, no server);
- ``http``: the output of `agent-guard serve --settings --http PORT`, with `serve --detach --http 0`
  running (``onFailure: block``; the token in ``AGENT_GUARD_TOKEN``).

The forms run interleaved, round by round, their order rotating.  Per form: the run's wall time
(median, min-max), per call, and added per call over ``none``: (median - none's median) / N, and
paired: the median over rounds of (this round's run - none's run of the same round) / N.  CPU:
Claude Code and every process it waited for (the hooks), per run; the server's (its session's
processes) per call.  The load average is printed before and after.

    python bench/claude_edit_cost.py [--kind edit|bash] [--calls 20] [--rounds 5] [--files 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "adapters"))
import anthropic_fake as fake  # noqa: E402  (tests/adapters/: the harness the system tests use)
import claude_harness as harness  # noqa: E402

FORMS = ("none", "noop", "pyfloor", "default", "cold", "http")


def guard(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=True
    )


def git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, timeout=120, check=True)


@dataclass
class Form:
    name: str
    repo: Path
    env: dict[str, str]  # without the fake's address
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    server_pid: int | None = None
    served: list[int] = field(default_factory=list)  # per run: the hook calls the server answered


def log_lines(form: Form) -> list[str]:
    path = Path(form.env["XDG_RUNTIME_DIR"]) / "agent-guard" / "server.log"
    return path.read_text(errors="replace").splitlines() if path.exists() else []


def answered(form: Form) -> int:
    """The hook calls the form's server has answered so far (its log names each)."""
    return sum(" call, " in line for line in log_lines(form))


def base_env(work: Path, name: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_", "XDG_", "PYTHON"))}
    e.update(GIT_ENV)
    e["PYTHONPATH"] = str(ROOT)
    e["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    run = work / f"run-{name}"
    run.mkdir(mode=0o700)
    e["XDG_RUNTIME_DIR"] = str(run)
    e["HOME"] = str(work / f"home-{name}")
    return e


def make_repo(repo: Path, env: dict[str, str], kind: str, calls: int, files: int) -> None:
    repo.mkdir()
    git(repo, env, "init", "-q")
    if kind == "edit":
        (repo / "nums.py").write_text("".join(f"x{i} = 0\n" for i in range(calls)))
    else:
        for i in range(files):
            folder = repo / f"pkg{i % 20}"
            folder.mkdir(exist_ok=True)
            (folder / f"mod{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "-m", "start")


def hooks(form: Form, work: Path) -> None:
    """Write the form's hook settings into its repository (none: nothing)."""
    if form.name in ("default", "cold"):
        guard(form.env, form.repo, "install", "claude-code", *(["--cold"] if form.name == "cold" else []))
    elif form.name in ("noop", "pyfloor"):  # a command hook that does nothing: what running one costs
        command = "true" if form.name == "noop" else f"{sys.executable} -SI -c pass"
        entry = {"type": "command", "command": command, "timeout": 30}
        matched = [{"matcher": "Edit|MultiEdit|Write|NotebookEdit|Bash", "hooks": [entry]}]
        (form.repo / ".claude").mkdir()
        settings = {"hooks": {"PreToolUse": matched, "PostToolUse": matched}}
        (form.repo / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    elif form.name == "http":
        guard(form.env, work, "serve", "--detach", "--http", "0")
        status = guard(form.env, work, "serve", "--status").stdout
        port = status.split("http://127.0.0.1:")[1].split("/")[0]
        form.env["AGENT_GUARD_TOKEN"] = (Path(form.env["XDG_RUNTIME_DIR"]) / "agent-guard" / "http-token").read_text().strip()
        settings = guard(form.env, work, "serve", "--settings", "--http", port).stdout
        (form.repo / ".claude").mkdir()
        (form.repo / ".claude" / "settings.local.json").write_text(settings)


def steps(repo: Path, kind: str, calls: int) -> list[fake.Step]:
    """The model's script for one run: each line of nums.py one higher (one Edit each), or N read-only Bash calls."""
    if kind == "bash":
        return [fake.calls(fake.Tool("Bash", {"command": f"echo {i}", "description": "say"})) for i in range(calls)] + [
            fake.Say("done")
        ]
    path = repo / "nums.py"
    out: list[fake.Step] = [fake.calls(fake.Tool("Read", {"file_path": str(path)}))]
    for line in path.read_text().splitlines():
        name, value = line.split(" = ")
        edit = {"file_path": str(path), "old_string": f"{line}\n", "new_string": f"{name} = {int(value) + 1}\n"}
        out.append(fake.calls(fake.Tool("Edit", edit)))
    return [*out, fake.Say("done")]


def one_run(exe: Path, form: Form, kind: str, calls: int) -> tuple[float, float]:
    """(wall, CPU of Claude Code and the processes it waited for) of one run; checked to have done every call."""
    script = fake.Script(steps(form.repo, kind, calls))
    before = os.times()
    with fake.serving(script) as url:
        env = harness.environment(Path(form.env["HOME"]), url, form.env)
        t0 = time.perf_counter()
        ran = harness.print_(exe, form.repo, env, "go", timeout=600)
        wall = time.perf_counter() - t0
    after = os.times()
    results = script.results()
    if ran.code != 0 or len(results) != calls + (kind == "edit") or any(r.is_error for r in results):
        raise RuntimeError(f"{form.name}: the run did not do every call: {ran}\n{results}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def session_cpu(pid: int | None) -> float:
    """User + system seconds of every process in `pid`'s session, and of those it reaped (Linux /proc)."""
    if pid is None:
        return 0.0
    try:
        sid = os.getsid(pid)
    except ProcessLookupError:
        return 0.0
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[3]) == sid:  # after the name: state ppid pgrp session ...
            total += sum(int(stat[i]) for i in (11, 12, 13, 14))
    return total / os.sysconf("SC_CLK_TCK")


def server_pid(form: Form, work: Path) -> int | None:
    status = subprocess.run(
        [sys.executable, "-m", "guard", "serve", "--status"], cwd=work, env=form.env, capture_output=True, text=True, timeout=60
    )
    return int(status.stdout.split("running: pid ")[1].split(",")[0]) if status.returncode == 0 else None


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", choices=("edit", "bash"), default="edit")
    ap.add_argument("--calls", type=int, default=20, help="Edits (or Bash calls) per run")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--files", type=int, default=1000, help="files in the repository of --kind bash")
    ap.add_argument("--forms", default=",".join(FORMS))
    args = ap.parse_args()
    exe = harness.program(install=True)
    if exe is None:
        print(f"Claude Code {harness.VERSION} cannot be had here (npm, or the network, is missing)")
        return 1
    work = Path(tempfile.mkdtemp(prefix="ag-claude-cost-"))
    forms: list[Form] = []
    try:
        for name in args.forms.split(","):
            env = base_env(work, name)
            form = Form(name, work / f"repo-{name}", env)
            make_repo(form.repo, env, args.kind, args.calls, args.files)
            hooks(form, work)
            forms.append(form)
        print(
            f"Claude Code {harness.VERSION}; {args.kind}: {args.calls} calls a run"
            + (f" in {args.files} files" if args.kind == "bash" else "")
            + f"; {args.rounds} rounds; {os.cpu_count()} CPUs; load average {load()}"
        )
        for form in forms:  # a warm-up run each: for `default`, its first call starts the server
            wall, _ = one_run(exe, form, args.kind, args.calls)
            form.server_pid = server_pid(form, work)
            print(f"  warm-up run, {form.name}: {wall:.2f} s" + (f" (server pid {form.server_pid})" if form.server_pid else ""))
        if any(f.name == "default" and f.server_pid is None for f in forms):
            time.sleep(5)  # the server the first call started is still warming up
            for form in forms:
                form.server_pid = form.server_pid or server_pid(form, work)
        for form in forms:
            form.server_cpu = -session_cpu(form.server_pid)
        for r in range(args.rounds):
            for form in forms[r % len(forms) :] + forms[: r % len(forms)]:
                before = answered(form)
                wall, cpu = one_run(exe, form, args.kind, args.calls)
                form.walls.append(wall)
                form.cpus.append(cpu)
                form.served.append(answered(form) - before)
        for form in forms:
            form.server_cpu += session_cpu(form.server_pid)
        print(f"load average after: {load()}")
        report(forms, args.calls, args.rounds)
        for form in forms:
            if form.server_pid is not None:
                print(f"{form.name}: hook calls the server answered, per run: {form.served} (of {2 * args.calls})")
                print("\n".join(f"  {line}" for line in log_lines(form) if " call, " not in line))
    finally:
        for form in forms:
            if form.server_pid is not None:
                subprocess.run(
                    [sys.executable, "-m", "guard", "serve", "--stop"], env=form.env, capture_output=True, timeout=60, check=False
                )
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(forms: list[Form], calls: int, rounds: int) -> None:
    none = next((f for f in forms if f.name == "none"), None)
    head = f"{'form':<8} {'run: median (min-max)':<24} {'per call':>9} {'added/call':>11} {'paired':>8} {'CPU/run':>8}"
    print(f"\n{head} {'server CPU/call':>16}")
    for f in forms:
        med = statistics.median(f.walls)
        added = paired = ""
        if none is not None and f is not none:
            added = f"{(med - statistics.median(none.walls)) / calls * 1000:.0f} ms"
            paired = f"{statistics.median((a - b) / calls for a, b in zip(f.walls, none.walls)) * 1000:.0f} ms"
        server = f"{f.server_cpu / (calls * rounds) * 1000:.1f} ms" if f.server_pid else "-"
        print(
            f"{f.name:<8} {med:5.2f} s ({min(f.walls):.2f}-{max(f.walls):.2f}){'':6} {med / calls * 1000:6.0f} ms "
            f"{added:>11} {paired:>8} {statistics.median(f.cpus):6.2f} s {server:>16}"
        )
    print(json.dumps({f.name: [round(w, 3) for w in f.walls] for f in forms}))


if __name__ == "__main__":
    sys.exit(main())
