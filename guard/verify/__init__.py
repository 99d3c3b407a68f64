"""Verify before it lands: the policy's own commands run on an edit's result, before anything is written.

A policy's ``verify`` list (``commands``) names commands (a linter, a type checker, the tests, a
formatter) or the repository's pre-commit hooks.  Once an edit has passed every check, ``run``
builds its result as a tree (``result``: the index, this agent's turns as the work tree has
them, the edit), writes that tree out in the agent's shadow checkout (``guard/repo/shadow.py``:
only the files that differ from what it held), and runs each command there, never in the
user's work tree, with the user's environment (``process``).  A command that fails refuses the
edit as finding ``verify``, with its name, exit status and the tail of its output; one that runs
past its timeout is stopped (its whole process group) and refuses it too.

A command that changes the edit's files (a formatter) fails the way pre-commit's hooks do: the
result is not as it wants it.  With ``fix: true`` its changes are taken instead, when the caller
can take them (an apply can; the Claude Code hook cannot rewrite the tool's edit): the command
runs again on the changed result and must pass there; the engine then writes the changed files
(repair ``verify-fix``) and runs the policy's checks on them again.  Later commands run on the
changed result.

What a command did on a tree is kept (``cache``): a retry of the same result runs nothing.
With no ``verify`` list nothing here is imported or run.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..model import Finding, error
from ..text.wording import plural

if TYPE_CHECKING:
    from ..model import FileChange
    from ..policy import Policy
    from ..repo import GitRepo
    from ..repo.shadow import Shadow
    from .cache import Results, Seen
    from .commands import Invocation
    from .guarded import Before
    from .process import Ran
    from .sandbox import Runner

MIN_SECONDS = 0.2  # a command is not started with less time than this left before the caller's deadline
DIFF_LINES = 40  # lines of a formatter's change a finding shows


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the verify commands said of one result: findings (an error refuses the edit), the edit's
    files as the fixes taken left them (path -> content), one record per command (the JSON report's
    ``verify``), and notes for the report."""

    findings: tuple[Finding, ...]
    fixed: Mapping[str, bytes]
    runs: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]

    @property
    def refused(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


def run(
    repo: GitRepo,
    pol: Policy,
    agent: str,
    changes: Sequence[FileChange],
    *,
    until: float | None = None,
    take_fixes: bool = True,
    deadline_name: str = "",
) -> Verdict:
    """Run the policy's verify commands on the result of `changes` (see the module doc).

    `until`: a ``time.monotonic()`` instant the caller must answer by (the Claude Code hook's
    deadline, which `deadline_name` names in messages); no command runs past it.  `take_fixes`:
    whether a ``fix: true`` command's changes may become part of the edit.
    """
    from ..record import ledger
    from ..repo import GitError
    from ..repo.shadow import Busy, NotPrivate, NotReady, Shadow
    from . import sandbox

    left_out, runs, todo = _planned(pol, changes)
    if not todo:
        return Verdict((), {}, tuple(runs), ())
    runner = sandbox.choose(sandbox.setting(pol.get("verify_sandbox")))
    if isinstance(runner, str):
        runs += [{"name": inv.command.name, "status": "skipped", "reason": "no sandbox"} for inv in todo]
        hint = (
            "install bubblewrap (bwrap), or set verify_sandbox: auto in .agent-guard.yaml to run unconfined; nothing was written"
        )
        return Verdict((error("verify", None, None, runner, hint),), {}, tuple(runs), ())
    try:
        with Shadow(repo, agent, until) as shadow:
            session = _Session(repo, pol, shadow, until, take_fixes, deadline_name, runner)
            return session.run(todo, changes, ledger.ref_for(repo, pol.ledger_prefix, agent), agent, runs, left_out)
    except NotPrivate as exc:
        return Verdict(
            (
                error(
                    "verify",
                    None,
                    None,
                    f"the verify commands were not run: {exc}",
                    "nothing was written; fix the folder, then send the edit again",
                ),
            ),
            {},
            tuple(runs),
            (),
        )
    except NotReady as exc:
        return Verdict(
            (
                error(
                    "verify",
                    None,
                    None,
                    f"{exc}, and there is no time left before {deadline_name or 'the deadline'}",
                    "send the edit again: the checkout goes on from where it stopped (nothing was written). "
                    "Or let a command without a deadline write it once: git agent-apply --check of any edit",
                ),
            ),
            {},
            tuple(runs),
            (),
        )
    except Busy as exc:
        return Verdict(
            (
                error(
                    "verify",
                    None,
                    None,
                    f"{exc}; the edit could not be verified before the deadline",
                    "send it again in a moment; nothing was written",
                ),
            ),
            {},
            tuple(runs),
            (),
        )
    except (GitError, OSError) as exc:  # OSError: what a command left in the checkout's git dir, say; it is made again next time
        return Verdict(
            (
                error(
                    "verify",
                    None,
                    None,
                    f"the shadow checkout for the verify commands could not be prepared: {exc}",
                    "nothing was written; fix what git says (a full disk, a damaged repository), "
                    f"or remove {_folder(repo, agent)} and send the edit again",
                ),
            ),
            {},
            tuple(runs),
            (),
        )


def _folder(repo: GitRepo, agent: str) -> str:
    from ..repo.shadow import NotPrivate, home

    try:
        return str(home(repo) / agent)
    except NotPrivate:
        return "the agent's checkout folder"


def nothing_to_run(pol: Policy, changes: Sequence[FileChange]) -> Verdict | None:
    """The verdict on `changes` when none of the policy's commands concerns them (their globs match no
    changed path), at the cost of matching globs; None when some command must run."""
    _left_out, runs, todo = _planned(pol, changes)
    return None if todo else Verdict((), {}, tuple(runs), ())


def _planned(pol: Policy, changes: Sequence[FileChange]) -> tuple[frozenset[str], list[dict[str, Any]], list[Invocation]]:
    """The changed files left out of the checkout (protected), the records of the commands that do not
    run, and those that do."""
    from ..files import redaction
    from .commands import configured, invocation

    left_out = frozenset(c.path for c in changes if c.after is not None and redaction.sealed(c.path, pol))
    runs: list[dict[str, Any]] = []
    todo: list[Invocation] = []
    for cmd in configured(pol):
        inv = invocation(cmd, changes, pol, left_out)
        if isinstance(inv, str):
            runs.append({"name": cmd.name, "status": "skipped", "reason": inv})
        else:
            todo.append(inv)
    return left_out, runs, todo


def sealer(pol: Policy) -> Callable[[str], bool]:
    """Whether the agent may not read a path (``redaction.sealed``), fast enough for every path of a
    large tree: an ASCII path that no protected glob, policy file or `.git`-like name can match is
    let through at once (for ASCII names, folding only trims trailing dots and blanks); any other
    is asked in full."""
    from ..files import redaction
    from ..text.globs import first_match

    globs = pol.protected
    own = {o.casefold() for o in pol.own_files}

    def sealed(path: str) -> bool:
        if path.isascii() and "git" not in path.casefold():
            folded = "/".join(part.rstrip(". ") for part in path.split("/"))
            if folded.casefold() not in own and (not globs or first_match(tuple({path, folded}), globs) is None):
                return False
        return redaction.sealed(path, pol)

    return sealed


def sealed_key(pol: Policy) -> str:
    """What decides which files an agent may not read (so the checkout leaves them out)."""
    import json

    return json.dumps([pol.read_protected, list(pol.protected), list(pol.own_files), pol.level("path-protected")])


class _Session:
    """One run of the verify commands in one shadow checkout (held locked by the caller)."""

    def __init__(
        self,
        repo: GitRepo,
        pol: Policy,
        shadow: Shadow,
        until: float | None,
        take_fixes: bool,
        deadline_name: str,
        runner: Runner,
    ) -> None:
        from .cache import Results

        self.repo, self.pol, self.shadow, self.runner = repo, pol, shadow, runner
        self.until, self.take_fixes, self.deadline_name = until, take_fixes, deadline_name
        self.cache: Results = Results(repo.gitdir / "agent-guard" / "verify" / "cache")
        self.head: str | None = None
        self.edited: tuple[str, ...] = ()  # the edit's files the checkout holds: a change to them is a fix
        self.others: dict[str, int] = {}  # command -> files it changed beyond the edit's (put back)
        self.before: Before | None = None  # the user's repository before the first command ran unconfined
        self.ran: list[str] = []  # the commands run (not answered from the cache), in order
        self.secrets: dict[bytes, str] | None = None  # protected lines (protected.needles), read when first needed

    def run(
        self,
        todo: Sequence[Invocation],
        changes: Sequence[FileChange],
        ledger_ref: str,
        agent: str,
        runs: list[dict[str, Any]],
        left_out: frozenset[str],
    ) -> Verdict:
        from . import result

        built = result.build(self.repo, self.shadow, ledger_ref, agent, changes)
        self.head = built.head
        self.edited = tuple(c.path for c in changes if c.after is not None and c.path not in left_out)
        findings: list[Finding] = []
        fixed: dict[str, bytes] = {}
        said: list[str] = []
        try:
            self._commands(todo, built.tree, runs, findings, fixed, said)
        finally:
            put_back = self._put_back()
        if put_back is not None:
            findings.append(put_back)
        return Verdict(tuple(findings), fixed, tuple(runs), self._notes(built.notes, said, left_out))

    def _commands(
        self,
        todo: Sequence[Invocation],
        tree: str,
        runs: list[dict[str, Any]],
        findings: list[Finding],
        fixed: dict[str, bytes],
        said: list[str],
    ) -> None:
        """Run each of `todo` in turn on `tree` (then on the fixes taken), adding to the lists given."""
        from .commands import CONFIG

        for inv in todo:
            cmd = inv.command
            if cmd.hooks and not inv.argv:
                findings.append(
                    error(
                        "verify",
                        None,
                        None,
                        f"{cmd.name!r} ({cmd.setting} of the policy) runs the repository's pre-commit "
                        "hooks, but pre-commit is not installed",
                        "install it (pip install pre-commit), or take pre-commit out of the policy's "
                        "verify list; nothing was written",
                    )
                )
                runs.append(
                    {"name": cmd.name, "status": "failed", "exit": None, "seconds": 0.0, "cached": False, "command": inv.shown}
                )
                continue
            if cmd.hooks and self.repo.tree_entry(tree, CONFIG) is None:
                runs.append({"name": cmd.name, "status": "skipped", "reason": f"the result has no {CONFIG}"})
                continue
            seen, ran, cached = self.observe(inv, tree)
            status, finding = "passed", None
            if seen is None:
                assert ran is not None
                status = "timeout" if ran.how in ("timeout", "deadline", "no-time") else "failed"
                finding = self.unfinished(inv, ran)
            elif seen.changed and cmd.fix and self.take_fixes and all(v is not None for v in seen.changed.values()):
                status, finding, tree, seen, cached = self._after_fix(inv, tree, seen, cached, fixed)
            elif seen.changed:
                status, finding = "failed", self.rewrote(inv, tree, seen)
            elif seen.code != 0:
                status, finding = "failed", self.failed(inv, seen)
            if finding is not None:
                findings.append(finding)
            seconds = seen.seconds if seen is not None else (ran.seconds if ran is not None else 0.0)
            code = seen.code if seen is not None else (ran.code if ran is not None else None)
            record = {"name": cmd.name, "status": status, "exit": code, "seconds": round(seconds, 3), "cached": cached}
            runs.append({**record, "command": inv.shown, **({} if cached else {"runner": self.runner.name})})
            said.append(f"{cmd.name} {status}" + (" (cached)" if cached else f" ({_seconds(seconds)})"))

    def _put_back(self) -> Finding | None:
        """What the commands changed outside the checkout, put back (``guarded``), as a finding."""
        from ..repo import GitError
        from . import guarded

        if self.before is None:
            return None
        before, self.before = self.before, None
        try:
            done = guarded.put_back(self.repo, before, self.pol.ledger_prefix, self.pol.max_file_bytes)
        except (GitError, OSError) as exc:
            return error(
                "verify",
                None,
                None,
                f"what the verify commands may have changed in the repository could not be compared: {exc}",
                "look at git status and the hooks folder before going on; nothing was written",
            )
        return guarded.finding(done, list(dict.fromkeys(self.ran)))

    def _after_fix(
        self, inv: Invocation, tree: str, seen: Seen, cached: bool, fixed: dict[str, bytes]
    ) -> tuple[str, Finding | None, str, Seen, bool]:
        """A command that fixed files (as `seen` shows), run again on its fixes: they stand when it
        then passes and changes nothing (their bytes go into `fixed`).  The status and finding,
        then the tree, what the command did and whether the answers were cached, as they stand."""
        from ..repo import Entry

        updates = {p: Entry(str(oid), self._mode(tree, p)) for p, oid in seen.changed.items()}
        again = self.repo.build_tree(tree, updates)
        seen2, ran2, cached2 = self.observe(inv, again)
        if seen2 is None:
            assert ran2 is not None
            status = "timeout" if ran2.how in ("timeout", "deadline", "no-time") else "failed"
            return status, self.unfinished(inv, ran2, after_fix=True), tree, seen, cached
        if seen2.changed:
            return "failed", self.rewrote(inv, tree, seen2, again=True), tree, seen, cached
        if seen2.code != 0:
            return "failed", self.failed(inv, seen2, after_fix=True), tree, seen, cached
        for path, oid in seen.changed.items():
            data = self.repo.read_blob(str(oid))
            if data is not None:
                fixed[path] = data
        return "fixed", None, again, replace(seen2, seconds=seen.seconds + seen2.seconds), cached and cached2

    def _notes(self, built: Sequence[str], said: list[str], left_out: frozenset[str]) -> tuple[str, ...]:
        """The checkout's notes, then what each command did, the files put back, the files left out."""
        notes = list(built)
        if said:
            notes.append("verify: " + "; ".join(said))
        if self.ran:
            confined = f"ran in {self.runner.name} (the file system read-only but the checkout, the work tree hidden)"
            notes.append("verify: " + (confined if self.runner.program else "ran unconfined (no sandbox)"))
        for name, count in self.others.items():
            notes.append(
                f"verify: {name!r} also changed {plural(count, 'file')} this edit does not touch; they "
                "were put back (only the edit's files are judged)"
            )
        if left_out:
            notes.append(f"verify: protected files are left out of the checkout: {', '.join(sorted(left_out))}")
        return tuple(notes)

    def _mode(self, tree: str, path: str) -> int:
        from ..repo import FILE

        entry = self.repo.tree_entry(tree, path)
        return entry.mode if entry is not None else FILE

    # ------------------------------------------------------------------ one command on one tree

    def observe(self, inv: Invocation, tree: str) -> tuple[Seen | None, Ran | None, bool]:
        """What `inv` does on `tree`: (what it did, None when it did not run to its end; how it ran, when
        it ran now; whether the answer came from the cache)."""
        from ..repo.shadow import command_environment
        from . import sandbox
        from .cache import Results, Seen
        from .process import Ran, execute

        key = Results.key(inv.command.name, "\0".join(inv.argv), str(inv.command.fix), tree, self.runner.name)
        hit = self.cache.get(key)
        if hit is not None:
            return hit, None, True
        limit = inv.command.timeout
        if self.until is not None:
            left = self.until - time.monotonic()
            if left < MIN_SECONDS:
                return None, Ran("no-time", None, 0.0, b""), False
            limit = min(limit, left)
        self._check_out(tree)
        before = {p: self._read(p) for p in self.edited}
        stray = self.shadow.stray_group()
        if stray is not None:
            _kill_group(stray)
        if self.before is None and self.runner.program is None:
            from . import guarded

            self.before = guarded.take(self.repo, self.pol.ledger_prefix, self.pol.max_file_bytes)
        self.ran.append(inv.command.name)
        self.shadow.running(None)
        ran = execute(self._argv(inv), str(self.shadow.work), command_environment(), limit, started=self.shadow.running)
        if ran.how == "timeout" and self.until is not None and limit < inv.command.timeout:
            ran = replace(ran, how="deadline")
        elif sandbox.stopped(ran.code, self.runner):
            ran = replace(ran, how="unstartable", code=None)
        changed = {p: data for p, data in ((p, self._read(p)) for p in self.edited) if data != before[p]}
        put_back = self.shadow.settle()
        beyond = set(put_back.changed) - set(changed)
        if beyond:
            self.others[inv.command.name] = len(beyond)
        # What no one is shown is not kept (a pass's output); what is shown has no protected line in it.
        output = self._shown(ran.output) if ran.how != "exited" or ran.code != 0 else b""
        if ran.how != "exited" or ran.code is None:
            return None, replace(ran, output=output), False
        seen = Seen(
            ran.code, output, {p: (None if d is None else self.repo.write_blob(d)) for p, d in changed.items()}, ran.seconds
        )
        self.cache.put(key, seen)
        return seen, ran, False

    def _argv(self, inv: Invocation) -> list[str]:
        """`inv` as the runner starts it: the user's work tree hidden, its object store shown again
        (the checkout borrows it), pre-commit's store writable for the repository's hooks."""
        from . import sandbox

        if self.runner.program is None:
            return list(inv.argv)
        root = Path(os.path.realpath(self.repo.root))
        objects = Path(os.path.realpath(self.repo.commondir / "objects"))
        writable: list[Path] = []
        if inv.command.hooks:
            store = sandbox.pre_commit_store()
            store.mkdir(mode=0o700, parents=True, exist_ok=True)
            writable.append(store)
        shown = objects if root in objects.parents else None
        return self.runner.wrap(inv.argv, self.shadow.work, root, shown, writable)

    def _shown(self, output: bytes) -> bytes:
        """A command's output as findings show it: paths from the checkout's top, escapes taken out,
        no line of a protected file (``protected``)."""
        from . import protected
        from .process import without_escapes

        output = without_escapes(_relative(output, str(self.shadow.work)))
        if not output:
            return output
        if self.secrets is None:
            self.secrets = protected.needles(self.shadow, self.pol, sealer(self.pol))
        return protected.redact(output, self.secrets)

    def _check_out(self, tree: str) -> None:
        if not self.shadow.holds(tree, self.head):
            self.shadow.check_out(tree, self.head, sealer(self.pol), sealed_key(self.pol))

    def _read(self, path: str) -> bytes | None:
        from ..tree import worktree

        try:
            return worktree.read(self.shadow.work, path)[0]
        except (worktree.UnsafePath, OSError):
            return None

    # ------------------------------------------------------------------ findings

    def _where(self) -> str:
        work = self.shadow.work
        try:
            return os.path.relpath(work, self.repo.root) if work.is_relative_to(self.repo.root) else str(work)
        except ValueError:
            return str(work)

    def _hint(self, first: str) -> str:
        return (
            f"{first} (nothing was written). It ran in {self._where()}, "
            f"{f'confined by {self.runner.name}' if self.runner.program else 'unconfined'}: the index, with this agent's "
            "changes and this edit; files git does not track are not there"
        )

    def _head(self, inv: Invocation, what: str) -> str:
        return f"{inv.command.name!r} ({inv.shown}) {what}"

    def failed(self, inv: Invocation, seen: Seen, after_fix: bool = False) -> Finding:
        from .process import tail

        what = f"failed with exit status {seen.code} on this edit's result" + (", with its own fixes taken" if after_fix else "")
        return error(
            "verify",
            None,
            None,
            _with_output(self._head(inv, what), tail(seen.output)),
            self._hint("fix what it reports and send the edit again"),
        )

    def unfinished(self, inv: Invocation, ran: Ran, after_fix: bool = False) -> Finding:
        from .process import tail

        cmd = inv.command
        again = " (run again on its own fixes)" if after_fix else ""
        if ran.how == "unstartable":
            return error(
                "verify",
                None,
                None,
                _with_output(self._head(inv, "could not be started"), tail(ran.output)),
                f"check the command in {cmd.setting} of the policy (.agent-guard.yaml); nothing was written",
            )
        if ran.how == "no-time":
            return error(
                "verify",
                None,
                None,
                f"{cmd.name!r} was not run: no time was left before {self.deadline_name or 'the deadline'}",
                "nothing was written; give the hook more time (its --deadline and the timeout of its entry "
                "in the agent's settings), or use fewer or faster verify commands",
            )
        if ran.how == "deadline":
            what = (
                f"did not finish on this edit's result{again} within the {_seconds(ran.seconds)} left before "
                f"{self.deadline_name or 'the deadline'}"
            )
            hint = (
                "nothing was written; give the hook more time (its --deadline and the timeout of its entry in the "
                "agent's settings), or make the command faster"
            )
        else:
            what = (
                f"did not finish on this edit's result{again} within its timeout of {_seconds(cmd.timeout)} "
                f"({cmd.setting}.timeout)"
            )
            hint = "nothing was written; make the command faster, or raise its timeout in .agent-guard.yaml"
        lines = tail(ran.output)
        message = self._head(inv, what) + "; it was stopped, with every process it started"
        return error("verify", None, None, _with_output(message, lines), hint)

    def rewrote(self, inv: Invocation, tree: str, seen: Seen, again: bool = False) -> Finding:
        from ..model import Op
        from ..tree import diffs

        cmd = inv.command
        names = ", ".join(sorted(seen.changed))
        parts: list[str] = []
        for path, oid in sorted(seen.changed.items()):
            found = self.repo.tree_entry(tree, path)
            old = self.repo.read_blob(found.oid) if found is not None else None
            new = self.repo.read_blob(oid) if oid is not None else None
            parts += diffs.make_change(path, Op.MODIFY if new is not None else Op.DELETE, old, new).diff.splitlines()
        shown = parts[:DIFF_LINES] + ([f"... ({len(parts) - DIFF_LINES} more lines)"] if len(parts) > DIFF_LINES else [])
        from ..text.wording import printable

        shown = [printable(line) for line in shown]
        if again:
            what = f"changed {names} again when run on its own changes (exit status {seen.code})"
            hint = "its changes do not settle: make the edit match what it wants, or ask the user to look at the command"
        else:
            what = f"changed {names} when run on this edit's result (exit status {seen.code}): it wants them otherwise"
            if not cmd.fix:
                entry = "{pre-commit: true, fix: true}" if cmd.hooks else "fix: true"
                hint = (
                    f"send the edit as the command leaves it (the diff above), or the user can let agent-guard take "
                    f"its changes: {entry} in {cmd.setting} of .agent-guard.yaml"
                )
            elif not self.take_fixes:
                hint = (
                    "send the edit as the command leaves it (the diff above): agent-guard takes such changes in its "
                    "own applies, but cannot rewrite this tool's edit"
                )
            else:
                hint = "it removed a file of the edit; agent-guard takes only changed contents: send the edit as it should be"
        return error("verify", None, None, _with_output(self._head(inv, what), shown), self._hint(hint))


def _with_output(message: str, lines: Sequence[str]) -> str:
    return message + (":\n" + "\n".join("    " + ln for ln in lines) if lines else " (no output)")


def _seconds(s: float) -> str:
    return f"{s:.1f} s" if s < 10 else f"{s:.0f} s"


def _relative(output: bytes, work: str) -> bytes:
    """Paths inside the checkout as the repository's own: the command's folder is its top."""
    for base in dict.fromkeys((work, os.path.realpath(work))):
        raw = os.fsencode(base)
        output = output.replace(raw + b"/", b"").replace(raw, b".")
    return output


def _kill_group(pgid: int) -> None:
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
