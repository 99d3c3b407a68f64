"""The commands a process runs most, without click: `apply`, `check` and `hook claude-code`.

An agent's harness runs `apply` for every edit, Claude Code runs `hook claude-code`
twice per edit, and a pre-commit hook runs `check` on every commit: importing click
and every command would cost each of them more than the work (~20 ms of ~100).  So
``program`` reads their arguments here when they are plain, and runs them.  Their
options are declared once, in ``options``: the click commands (``commands.py``,
``check.py``, ``adapters.py``) are made from the same declaration this reader reads,
and any argument it does not take (help, an unknown option, an option given twice,
a value that looks like an option or that click would refuse, a FILE that cannot be
read) goes to click, which owns the help and every message about a mistake in the
arguments; both ways run the same ``run_*`` function below.  `hook claude-code` first
asks the user's `agent-guard serve`, when one runs (``guard/warm/client.py``), and does
the work itself when none answers.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..collector import Paused
from ..errors import UsageError
from .options import APPLY, CHECK, CLAUDE_CODE

if TYPE_CHECKING:
    from ..report import Report


# ---------------------------------------------------------------------- apply


def parse_apply(args: Sequence[str]) -> dict[str, Any] | None:
    """`apply`'s arguments as click reads them (``commands.apply_cmd``), or None when click must read them."""
    return APPLY.read(args)


def whole_without_input(dialect: str, target: str | None, file: str | None) -> bool:
    """`--format whole` with neither --path, FILE nor piped input: a usage error (click's to say)."""
    return dialect == "whole" and target is None and file is None and sys.stdin.isatty()


# What `apply` says when it waits on a terminal for the edit (``read_input``).
WAITING = (
    "agent-guard: reading the edit from standard input (a diff, a Codex patch, SEARCH/REPLACE blocks, "
    "JSON...); end it with Ctrl-D, or give a FILE: git agent-apply FILE\n"
)


def read_input(file: str | None, quiet: bool = False) -> bytes:
    """The edit `apply` reads: FILE, or standard input (None or "-"); OSError when FILE cannot be read.

    On a terminal, standard input is someone typing or pasting: say what is awaited (on
    standard error, unless `quiet`), where `git apply` says nothing and seems to hang.
    """
    if file is None or file == "-":
        if not quiet and sys.stdin.isatty():
            sys.stderr.write(WAITING)
            sys.stderr.flush()
        return sys.stdin.buffer.read()
    with open(file, "rb") as fh:
        return fh.read()


def run_apply(
    data: bytes,
    *,
    dialect: str = "auto",
    agent: str | None = None,
    turn: str | None = None,
    policy: str | None = None,
    target: str | None = None,
    check: bool = False,
    as_json: bool = False,
    show_diff: bool = False,
    quiet: bool = False,
) -> int:
    """`agent-guard apply` once its options are read and its input is in hand: print the report, return the status."""
    from ..engine import Guard

    report = Guard(".", policy).apply(data, format=dialect, agent=agent, turn=turn, check=check, path=target)
    return emit(report, as_json, show_diff, quiet)


def emit(report: Report, as_json: bool, show_diff: bool = False, quiet: bool = False) -> int:
    """Print an `apply` or `rollback` report on standard output, whatever its outcome, and return
    its exit status.

    The report is what the command was asked for, refused or not (as `git diff --check` and
    `git status` print theirs on stdout): a harness that reads stdout gets the findings, and
    standard error is left to what is not the report (usage and internal errors, progress,
    the note that `apply` waits for input).  `quiet`: nothing unless refused.
    """
    if as_json:
        text = report.to_json()
    elif quiet and report.status != "refused":
        return report.exit_code
    else:
        from ..report.render import human
        from .terminal import colour

        text = human(report, show_diff, colour=colour(sys.stdout))
    sys.stdout.write(text + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code


# ---------------------------------------------------------------------- check


def check_conflict(mode: str | None, from_ref: str | None, to_ref: str | None, renderer: str | None, as_json: bool) -> str | None:
    """What is wrong with a combination of `check`'s options, or None."""
    if as_json and renderer not in (None, "json"):
        return f"--json and --output-format {renderer} disagree; give one"
    if mode is not None and (from_ref or to_ref):
        return f"--{mode} and --from-ref/--to-ref choose different things to check; give one"
    return None


def parse_check(args: Sequence[str]) -> dict[str, Any] | None:
    """`check`'s arguments as click reads them (``check.check_cmd``), or None when click must read them."""
    out = CHECK.read(args)
    if out is None:
        return None
    if check_conflict(out["mode"], out["from_ref"], out["to_ref"], out["renderer"], out["as_json"]) is not None:
        return None
    return out


def repo_paths(root: Path, raw: Sequence[str]) -> tuple[str, ...]:
    """Paths as given (relative to the current folder) -> relative to the repository root."""
    # Plain strings, not pathlib (pre-commit names thousands of files), and each
    # folder resolved once.
    top = str(root)
    inside = top.rstrip("/") + "/"
    folders: dict[str, str] = {}
    out: list[str] = []
    cwd = os.getcwd()
    for p in raw:
        full = os.path.normpath(os.path.join(cwd, p))  # os.path.abspath, without a getcwd per path
        folder, name = os.path.split(full)
        # Resolve the folders, not the name itself: a committed symlink is judged as itself.
        if name:
            real_folder = folders.get(folder)
            if real_folder is None:
                real_folder = folders[folder] = os.path.realpath(folder)
            real = os.path.join(real_folder, name)
        else:
            real = os.path.realpath(full)
        if real == top:
            out.append("")
        elif real.startswith(inside):
            out.append(real[len(inside) :])
        else:
            raise UsageError(f"{p} is outside the repository {root}; name paths inside it")
    return tuple(out)


def run_check(
    paths: Sequence[str],
    *,
    mode: str | None = None,
    from_ref: str | None = None,
    to_ref: str | None = None,
    policy: str | None = None,
    renderer: str | None = None,
    process_ends: bool = False,
    quiet: bool = False,
    baseline_out: str | None = None,
) -> int:
    """`agent-guard check` once its options are read (by click or by ``parse_check``): print the
    report, return the status.

    `mode` is "staged", "all-files" or None; `renderer` one of ``render.RENDERERS`` or None
    (human).  The options are consistent (the caller refused the rest).  `process_ends`:
    the process ends after this command (``program.run``), so what the check holds may be
    left to the exit.  `quiet`: people's
    output holds the findings only, nothing when there are none.  `baseline_out`: write the
    findings to this baseline file (``commit_check.baseline``) instead of failing on them.
    """
    from .. import commit_check
    from ..report import render
    from ..workspace import Workspace
    from .terminal import Progress, colour

    if baseline_out is not None and mode != "all-files":
        raise UsageError("--write-baseline records the findings of every file as it is: give --all-files too")
    if mode is None and from_ref is None and to_ref is None:
        env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
        if env_from and env_to:
            from_ref, to_ref = env_from, env_to
    progress = Progress("agent-guard check", quiet)
    # A check keeps a tuple per added line (``guard.collector``); when the process ends
    # after it, the collector stays off to the end.
    with Paused(process_ends=process_ends):
        try:
            g = Workspace(".", policy, bare_ok=True)
            g.recover()  # a write a crash interrupted is rolled back before the tree is checked
            # A bare repository (a server's receive hook) has no work tree: paths are the repository's.
            named = tuple(os.path.normpath(p) for p in paths) if g.repo.bare else repo_paths(g.root, paths)
            report = commit_check.check(
                g,
                from_ref=from_ref,
                to_ref=to_ref,
                all_files=mode == "all-files",
                paths=named,
                use_baseline=baseline_out is None,
                progress=progress,
            )
        finally:
            progress.end()
    if baseline_out is not None:
        return _write_baseline(report, baseline_out, g.root, renderer, quiet)
    if renderer is None and (quiet or os.environ.get("PRE_COMMIT")) and not report.findings and (quiet or not report.notes):
        # pre-commit prints a passing hook's output (the hook is `verbose`, so that warnings
        # show): a clean check has nothing to add to its "Passed".
        return report.exit_code
    sys.stdout.write(render.check(report, renderer or "human", colour=colour(sys.stdout), quiet=quiet) + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code


def _write_baseline(report: Report, target: str, root: Path, renderer: str | None, quiet: bool) -> int:
    """Write `report`'s findings to the baseline file `target` and say so: the repository adopts the check."""
    from ..commit_check import baseline

    content, listed = baseline.text(report.findings, report.changes)
    baseline.write(target, content)
    files = baseline.described(f.path for f in report.findings if f.path)
    full = os.path.realpath(target)
    inside = full.startswith(str(root).rstrip("/") + "/")
    name = os.path.relpath(full, root) if inside else target
    if renderer == "json":
        doc = report.as_dict()
        doc["status"] = "checked"
        doc["baseline"] = {"written": name, "findings": listed}
        import json

        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    elif not quiet:
        where = (
            f"name it in .agent-guard.yaml (baseline: {name}) and commit it"
            if inside
            else "move it into the repository and name it in .agent-guard.yaml (baseline: PATH)"
        )
        sys.stdout.write(
            f"agent-guard check: wrote the baseline {target}: {listed:,} finding"
            f"{'s' if listed != 1 else ''} in {files}; {where}: later checks then report only findings "
            "it does not list\n"
        )
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------- hook claude-code


def parse_claude_code(args: Sequence[str]) -> dict[str, Any] | None:
    """`hook claude-code`'s arguments as click reads them (``adapters.claude_code_cmd``), or None
    when click must read them."""
    return CLAUDE_CODE.read(args)


def run_claude_code(agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: float) -> int:
    """`agent-guard hook claude-code`: answer the payload on standard input; the exit status Claude Code reads.

    Every failure, even one writing the answer, still exits with a status Claude Code obeys
    (a pre hook's blocks the edit).
    """
    from ..adapters.claude_code import BLOCK, Deadline, claude_code

    timer = Deadline(deadline)
    started = time.monotonic()
    try:
        with timer:
            warm = _ask_server(agent, turn, policy, on_pass, deadline, started, timer)
            if warm is not None:  # the user's server answered (or failed, and the answer says so)
                status, out, err = warm
                for data, stream in ((out, sys.stdout), (err, sys.stderr)):
                    if data:
                        stream.flush()
                        stream.buffer.write(data)
                        stream.buffer.flush()
                return status
            answer = claude_code(sys.stdin.buffer.read(), agent, turn, policy, on_pass, timer)
            # Written and flushed here: a stream that fails must fail inside the hook's guard.
            for text, stream in ((answer.stdout, sys.stdout), (answer.stderr, sys.stderr)):
                if text:
                    stream.write(text)
                    stream.flush()
    except BaseException as exc:  # a stream that broke, an interrupt: still an answer Claude Code obeys
        if isinstance(exc, SystemExit):
            raise
        what = "the edit was blocked" if timer.failing == BLOCK else "the write was not recorded"
        try:
            os.write(2, f"agent-guard hook: {type(exc).__name__}: {exc}; {what}\n".encode("utf-8", "replace"))
        except OSError:
            pass
        return timer.failing
    return answer.code


def _ask_server(
    agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: float, started: float, timer: Any
) -> tuple[int, bytes, bytes] | None:
    """The user's `agent-guard serve`'s answer to this call (``guard/warm/client.py``), or None when
    this process must do the work itself (no server of the user's, of this code, answers)."""
    if not hasattr(os, "environb"):  # pragma: no cover - no POSIX: no Unix socket
        return None
    from ..warm import client

    words = [
        f"{name}={value}" for name, value in (("--agent", agent), ("--turn", turn), ("--policy", policy)) if value is not None
    ]
    words += [f"--on-pass={on_pass}", f"--deadline={deadline!r}"]
    # The deadline is armed already (`timer`): it bounds the server's answer too.
    return client.ask(
        [os.fsencode(w) for w in words], os.environb, sys.stdin.buffer.read, started, lambda left, total: None, timer.after_write
    )
