"""One pass from input bytes to a Report: parse, locate, check, stage, write, record.

``Guard`` is a session on one repository.  The CLI makes one per command; the
Python API and the MCP server keep one alive, so the repository handle and the
parsed policy are reused across calls (the policy is re-read only when its file
changes).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from . import diffs, formats, ledger, rebase, stage, worktree
from .audience import CLI, Audience
from .eol import as_checked_out
from .errors import UsageError
from .locate import apply_splices, locate_changes
from .model import EditSet, FileChange, FileEdit, Finding, Hunk, Op, PathBase, Snippet, error
from .repo import EXEC, FILE, GitRepo, RefLocked
from .report import Report, TurnRef
from .textfile import BOM, Text, decode, decode_or_none, split
from .wording import plural
from .workspace import Workspace

if TYPE_CHECKING:
    from .policy import Policy


@dataclass(frozen=True)
class Planned:
    changes: tuple[FileChange, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]


def default_agent(agent: str | None) -> str:
    name = agent or os.environ.get("AGENT_GUARD_AGENT") or "agent"
    problem = ledger.agent_problem(name)
    if problem is not None:
        raise UsageError(f"invalid agent name {name!r}: {problem}; {ledger.AGENT_RULE}")
    return name


def default_turn(turn: str | None) -> str | None:
    """`turn`, else $AGENT_GUARD_TURN, else None (a new turn); a usage error when it is no valid id."""
    tid = turn or os.environ.get("AGENT_GUARD_TURN") or None
    problem = ledger.turn_id_problem(tid) if tid is not None else None
    if problem is not None:
        raise UsageError(problem + ("" if turn else " ($AGENT_GUARD_TURN)"))
    return tid


def _has_errors(findings: Sequence[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def _ordered(fe: FileEdit) -> bool:
    # Hunks that carry context or line numbers are listed in file order (diffs, Codex
    # chunks); bare SEARCH/REPLACE blocks and str_replace edits are not, so each of
    # those must be unique in the whole file.
    return any(
        isinstance(c, Hunk) and (c.old_start is not None or c.anchors or any(hl.tag == " " for hl in c.lines))
        for c in fe.changes
    )


class Guard(Workspace):
    """A workspace that applies edits: parse, locate, check, write, record (see the module doc)."""

    # ------------------------------------------------------------------ apply

    def apply(
        self,
        data: bytes | str,
        *,
        format: str = "auto",
        agent: str | None = None,
        turn: str | None = None,
        check: bool = False,
        path: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        audience: Audience | None = None,
        tool: str | None = None,
        log_pass: bool = True,
    ) -> Report:
        """Apply one edit, or refuse it whole.

        Relative paths the agent names are read from `cwd` (default: the current folder)
        when it is inside the work tree, else from the root; `diff --git` names are always
        from the root (``PathBase``; the README's "First apply").  Hints name the tools of
        `audience` (default: the command line, from that folder).  The outcome is logged
        (guard/events.py) with the agent's `tool` when an adapter names one; with
        `log_pass=False` only a refusal is, and the caller logs the edit once it lands.
        """
        started = time.monotonic()
        agent = default_agent(agent)
        turn = default_turn(turn)
        pol = self.policy(agent)
        # A str may hold a lone surrogate (no character, and no UTF-8): kept as bytes that
        # are not UTF-8, it is refused below as `not-utf8` like any other such input.
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        here = self.folder(cwd)
        report = self._apply(raw, format, agent, turn, check, path, pol, here, audience or Audience("cli", here))
        if log_pass or report.status == "refused":
            self._event("apply", agent, turn, report, len(raw), started, tool)
        return report

    def folder(self, cwd: str | os.PathLike[str] | None = None) -> str:
        """The repository-relative folder relative paths start from ("" for the root)."""
        from . import paths

        return paths.folder_of(self.root, os.getcwd() if cwd is None else cwd)

    def _apply(self, raw: bytes, fmt: str, agent: str, turn: str | None, check: bool, path: str | None, pol: Policy,
               here: str = "", audience: Audience = CLI) -> Report:
        too_big = _over_byte_budget(len(raw), pol)
        if too_big is not None:
            return Report("refused", None if fmt == "auto" else fmt, findings=(too_big,))
        if raw.startswith(BOM):
            raw = raw[len(BOM):]
        if b"\x00" in raw:
            return Report("refused", None, findings=(error(
                "binary", None, None, "the edit contains NUL bytes: binary input is not an edit",
                "send text edits only; binary files cannot be changed through agent-guard"),))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # ED A0..ED BF: a lone surrogate of a str (see `apply`), not a byte anyone sent.
            pair = raw[exc.start:exc.start + 2]
            half = len(pair) == 2 and pair[0] == 0xED and pair[1] >= 0xA0
            what = ": half of a UTF-16 surrogate pair, no character" if half else ""
            return Report("refused", None, findings=(error(
                "not-utf8", None, None, f"the edit is not UTF-8 text (byte {exc.start}{what})",
                "send the edit as UTF-8"),))
        edits, findings = formats.parse(text, fmt, path, audience)
        if edits is None:
            return Report("refused", None if fmt == "auto" else fmt, findings=tuple(findings))
        with worktree.locked(self.repo):
            stage.recover(self.repo)
            self._check_turn(pol, agent, turn)
            locked = ref_locked(self.repo, ledger.ref_name(pol.ledger_prefix, agent)) if not check else None
            if locked is not None:
                return Report("refused", edits.format, findings=(locked,))
            self.repo.forget_attributes()
            plan = self.plan(edits, pol, agent, turn, len(raw), here, audience)
            status = "refused" if _has_errors(plan.findings) else ("checked" if check else "applied")
            if status != "applied":
                return Report(status, edits.format, plan.changes, plan.findings, notes=plan.notes)
            if all(c.before == c.after and c.old_mode == c.new_mode and not c.old_path for c in plan.changes):
                # Nothing to write (a no-op let through as a warning): no empty turn either.
                return Report("applied", edits.format, plan.changes, plan.findings, notes=plan.notes)
            try:
                turn_ref = self._write_turn(plan.changes, pol, agent, turn, edits.format, len(raw))
            except worktree.UnsafePath as exc:
                return Report("refused", edits.format, plan.changes, plan.findings + (swapped_path(exc),), notes=plan.notes)
            except RefLocked as exc:
                return Report("refused", edits.format, plan.changes, plan.findings + (lock_finding(exc.name, exc.lock),),
                              notes=plan.notes)
        return Report("applied", edits.format, plan.changes, plan.findings, turn_ref, plan.notes)

    def _check_turn(self, pol: Policy, agent: str, turn: str | None) -> None:
        """A usage error when `turn` names an earlier turn of the agent (call under the lock)."""
        if turn is not None:
            problem = ledger.check_turn_id(self.repo, ledger.ref_name(pol.ledger_prefix, agent), agent, turn)
            if problem is not None:
                raise UsageError(problem)

    def _write_turn(self, changes: Sequence[FileChange], pol: Policy, agent: str, turn: str | None, fmt: str,
                    nbytes: int, kind: str = "turn", rolls_back: Sequence[str] = (),
                    remove_dirs: Sequence[str] = ()) -> TurnRef:
        """Write `changes` to the work tree and record them as the agent's turn (``stage.write_turn``)."""
        new = ledger.NewTurn(agent, turn, fmt, pol.name, nbytes, kind, tuple(rolls_back))
        staged = stage.write_turn(self.repo, pol.ledger_prefix, new, changes, remove_dirs=remove_dirs,
                                  memo=self.ledger_memo)
        return TurnRef(agent, staged.turn, staged.commit, staged.ref)

    def record(self, changes: Sequence[FileChange], *, agent: str | None = None, turn: str | None = None,
               fmt: str = "external", nbytes: int = 0) -> TurnRef:
        """Record changes another tool already wrote to the work tree as a turn.

        Nothing is written but the ledger: each change's ``before`` must be the file
        as it was before that tool ran (the ledger syncs to it first, so the turn's
        diff is exactly ``before`` -> ``after``).  The ref moves by compare-and-swap.
        """
        agent = default_agent(agent)
        turn = default_turn(turn)
        pol = self.policy(agent)
        with worktree.locked(self.repo):
            stage.recover(self.repo)
            self._check_turn(pol, agent, turn)
            staged = stage.record_turn(self.repo, pol.ledger_prefix, ledger.NewTurn(agent, turn, fmt, pol.name, nbytes),
                                       changes, memo=self.ledger_memo)
        return TurnRef(agent, staged.turn, staged.commit, staged.ref)

    # ------------------------------------------------------------------ planning

    def plan(self, edits: EditSet, pol: Policy, agent: str, turn: str | None, nbytes: int, here: str = "",
             audience: Audience = CLI) -> Planned:
        """Locate and check `edits`; relative paths start from the folder `here` (see ``folder``)."""
        from . import checks

        changes: list[FileChange] = []
        findings: list[Finding] = []
        notes: list[str] = []
        seen: dict[str, int] = {}
        tiers = tuple(pol.tiers)
        for fe in edits.files:
            ch, fs, ns = self._locate_file(fe, pol, tiers, here, audience,
                                           guessed_whole=edits.detected and edits.format == "whole")
            findings += fs
            notes += ns
            if ch is None:
                continue
            for p in {ch.path, ch.old_path or ch.path}:
                if p in seen:
                    findings.append(error("overlap", p, fe.source_line or None,
                                          f"{p} is changed by two separate file sections of this edit",
                                          "put every change to one file in one section"))
                seen[p] = 1
            changes.append(ch)
        # Parse-level repairs (a stripped line-number prefix...) belong to every file; a
        # recount is already reported per hunk by the locator.
        extra = tuple(r for r in edits.repairs if r != "recount")
        if extra:
            changes = [replace(c, repairs=tuple(dict.fromkeys(c.repairs + extra))) for c in changes]
        turn_used, session_used = ledger.usage(self.repo, ledger.ref_name(pol.ledger_prefix, agent), agent, turn)
        inp = checks.CheckInput(
            changes=tuple(changes),
            policy=pol,
            tracked=self._tracked_for(pol, agent),
            attr=self.repo.attr,
            core_whitespace=self.repo.config("core.whitespace"),
            usage=checks.Usage(turn_used, session_used),
            edit_bytes=nbytes,
        )
        result = checks.run(inp)
        return Planned(tuple(result.changes), tuple(findings) + tuple(result.findings), tuple(notes))

    def _tracked_for(self, pol: Policy, agent: str) -> Callable[[str], bool]:
        """Tracked by git, or created by this agent in an earlier turn (on its shadow ref)."""
        tip = self.repo.ref(ledger.ref_name(pol.ledger_prefix, agent))
        tip_tree = self.repo.commit_tree(tip) if tip else None

        def tracked(path: str) -> bool:
            return self.repo.tracked(path) or self.repo.tree_entry(tip_tree, path) is not None

        return tracked

    def resolve(self, raw: str, pol: Policy, reading: bool = False) -> tuple[str | None, Finding | None]:
        """An agent's path as a repository-relative one, or the finding that refuses it: outside
        the tree, in git's own folders, protected (for `reading`: not to be read), in a submodule."""
        from . import paths

        rel, finding = paths.resolve(self.root, raw)
        if finding is not None or rel is None:
            return None, finding
        own = paths.git_folder_finding(rel, self.repo.git_folders())
        if own is not None:
            return None, own
        prot = paths.read_finding(rel, pol) if reading else paths.protected_finding(rel, pol)
        if prot is not None and prot.severity == "error":
            return None, prot
        sub = self.repo.submodule_of(rel)
        if sub is not None:
            # paths.resolve sees a checked-out submodule's .git; this is one not checked out,
            # whose empty folder a later `git submodule update` must find empty.
            return None, error("path-protected", rel, None,
                               f"{rel!r}: {sub!r} is a submodule (git records it as a commit, not files)",
                               "edit the submodule in its own repository, not through this one")
        return rel, None

    def _locate_file(self, fe: FileEdit, pol: Policy, tiers: tuple[str, ...], here: str = "",
                     audience: Audience = CLI, guessed_whole: bool = False
                     ) -> tuple[FileChange | None, list[Finding], list[str]]:
        from . import paths
        from .checks import content_finding

        if fe.binary:
            return None, [error("binary", fe.path, None, f"binary patch for {fe.path}: agent-guard edits text only",
                                "change binary files outside the agent, or send a text edit")], []
        start = "" if fe.path_base is PathBase.ROOT else here
        guess = fe.path_base is PathBase.GUESS
        fe = self._prefix_dropped(fe, start, guess)
        path, f = self.resolve(paths.from_folder(start, fe.path, guess), pol)
        if f is not None or path is None:
            return None, [f] if f else [], []
        src: str = path
        if fe.old_path and fe.op in (Op.RENAME, Op.MODIFY) and fe.old_path != fe.path:
            old, f = self.resolve(paths.from_folder(start, fe.old_path, guess), pol)
            if f is not None or old is None:
                return None, [f] if f else [], []
            src = old
        try:
            before, old_mode = worktree.read(self.root, src)
            if src != path:
                dest, _ = worktree.read(self.root, path)
            else:
                dest = before
        except worktree.UnsafePath as exc:
            # worktree.read refuses any non-regular file; a plain folder is no symlink escape.
            folder = next((p for p in dict.fromkeys((src, path)) if _is_folder(self.root / p)), None)
            if folder is None:
                return None, [error("path-outside", fe.path, None, f"{exc}: agent-guard never writes through a symlink",
                                    "edit the file the link points to, by its own path inside the repository")], []
            if fe.op is Op.CREATE or folder != src:
                return None, [error("exists", folder, None, f"{folder} already exists as a folder; a file cannot be written there",
                                    "name a file inside that folder, or another path")], []
            return None, [error("missing", folder, None, f"{folder} is a folder, not a file", "name a file")], []
        op = fe.op
        if before is None and self.repo.skip_worktree(src):
            return None, [_outside_sparse(src, op is Op.CREATE or fe.create_missing)], []
        if op is Op.CREATE:
            if before is not None:
                return None, [error("exists", path, None, f"{path} already exists; a create would overwrite it",
                                    "send a modify edit (a diff or SEARCH/REPLACE against its current content), or delete it first")], []
        elif before is None:
            if fe.create_missing and op is Op.MODIFY:
                op = Op.CREATE
            else:
                verb = "delete" if op is Op.DELETE else "modify"
                return None, [error("missing", path, None, f"cannot {verb} {src}: it does not exist",
                                    f"create it with a new-file edit, or check the path "
                                    f"({paths.start_rule(start, fe.path_base is PathBase.ROOT)})")], []
        if (fe.new_mode or FILE) not in (FILE, EXEC):
            kind = "a symlink" if fe.new_mode == 0o120000 else "a submodule" if fe.new_mode == 0o160000 else f"mode {fe.new_mode:o}"
            return None, [error("path-outside", path, None,
                                f"{path} would become {kind}: agent-guard writes regular files only (a link may point outside the repository)",
                                "create links and submodules yourself, outside the agent")], []
        if op is Op.RENAME and src != path and dest is not None:
            return None, [error("exists", path, None, f"cannot move {src} to {path}: {path} already exists",
                                "delete the destination first, or move to another name")], []
        if before is not None:
            bad = content_finding(src, before, self.repo.attr)
            if bad is not None:
                return None, [bad], []
        from . import anchors  # hashline's module too: only an apply that reaches a file pays for it

        got_read = anchors.against_read(self.repo, fe, src, before, pol, audience)
        fe, read_findings, read_repairs = got_read.edit, list(got_read.findings), got_read.repairs
        if _has_errors(read_findings):
            return None, read_findings, []
        new_mode = fe.new_mode or old_mode or FILE
        if op is Op.DELETE:
            if got_read.stale is not None:
                return None, [got_read.stale], []  # deleting a file changed since it was seen loses that change
            ch, fs, ns = self._delete(fe, path, before, old_mode, tiers)
            return ch, read_findings + fs, ns
        text = decode(before) if before is not None else Text((), (), False)
        repairs: list[str] = list(read_repairs)
        notes: list[str] = []
        flt = self.repo.attr(path, "filter")
        if isinstance(flt, str):
            # What the agent read and what an editor would write: the work-tree bytes.
            notes.append(f"{path} passes through the git filter {flt!r}: the edit applies to its work-tree "
                         "(smudged) bytes, and git runs the filter's clean step when the file is staged")
        if got_read.stale is not None:
            since = self._since_seen(fe, text, got_read.seen, tiers, path)
            if since is None:
                return None, [got_read.stale], []
            if isinstance(since, Finding):
                return None, [since], []
            new_text, more_repairs = since
            repairs += more_repairs
            regions = None
        elif fe.content is not None:
            if guessed_whole and before is not None:
                doubt = _snippet_not_file(path, text, fe.content, audience)
                if doubt is not None:
                    return None, [doubt], []
            new_text, reps = _whole(text, fe.content, before is not None)
            repairs += reps
            regions = None
        else:
            got = self._edited(fe, text, before, tiers, path, pol)
            if isinstance(got, list):
                return None, got, []
            new_text, regions, more_repairs, more_notes = got
            repairs += more_repairs
            notes += more_notes
        repairs += fe.repairs
        if not any(text.eols):
            # A new file (or one without a line end of its own): the endings git's checkout
            # would give it (`* text=auto eol=crlf`: CRLF), whatever the edit used.
            new_text, converted = as_checked_out(new_text, path, self.repo.attr, self.repo.config)
            if converted:
                repairs.append("eol")
        after = new_text.encode()
        change = diffs.make_change(
            path, op, before, after, old_path=src if src != path else None, old_mode=old_mode,
            new_mode=new_mode, repairs=repairs, regions=regions,
            before_text=text if before is not None else None, after_text=new_text, whole=fe.content is not None,
        )
        return change, read_findings, notes

    def _earlier(self, path: str, before: bytes, pol: Policy) -> list[tuple[str, Text]]:
        """Earlier versions of `path` an agent may have written against: its last read, its
        last write, HEAD's (each once, and only those that differ from the file now)."""
        from . import anchors, reads

        agent = pol.agent or "agent"
        ids: list[tuple[str, str | None]] = []
        read = reads.last(self.repo, agent, path)
        ids.append((f"{agent}'s last read", read.blob if read else None))
        ids.append((f"{agent}'s last write", anchors.last_written(self.repo, pol, agent, path)))
        head = self.repo.head_commit()
        entry = self.repo.tree_entry(self.repo.commit_tree(head), path) if head else None
        ids.append(("HEAD's version", entry.oid if entry else None))
        now = self.repo.hash_blob(before)
        out: list[tuple[str, Text]] = []
        seen = {now}
        for label, oid in ids:
            if oid is None or oid in seen:
                continue
            seen.add(oid)
            text = decode_or_none(self.repo.read_blob(oid))
            if text is not None:
                out.append((label, text))
        return out

    def _prefix_dropped(self, fe: FileEdit, start: str = "", guess: bool = False) -> FileEdit:
        """`a/src/x.py` read as `src/x.py`: a diff's `a/` or `b/` copied into the path of a file to change.

        Only where the path as written names nothing and the path without the prefix
        names a regular file (a real folder `a/` keeps its meaning).  Paths are as
        written, read from the folder `start` (``paths.from_folder``).
        """
        from . import paths

        if fe.op is Op.CREATE or fe.create_missing:
            return fe
        source = fe.old_path if fe.op is Op.RENAME and fe.old_path else fe.path

        def exists(rel: str) -> bool:
            full = self.root / paths.from_folder(start, rel, guess)
            return os.path.lexists(full)

        if not source.startswith(("a/", "b/")) or exists(source) or not exists(source[2:]):
            return fe
        plain = self.root / paths.from_folder(start, source[2:], guess)
        if plain.is_symlink() or not plain.is_file():
            return fe
        repairs = tuple(dict.fromkeys(fe.repairs + ("path-prefix",)))
        if fe.op is Op.RENAME and fe.old_path:
            dest = fe.path[2:] if fe.path.startswith(("a/", "b/")) and not exists(fe.path) else fe.path
            return replace(fe, old_path=source[2:], path=dest, repairs=repairs)
        old = fe.old_path[2:] if fe.old_path and fe.old_path.startswith(("a/", "b/")) else fe.old_path
        return replace(fe, path=source[2:], old_path=old, repairs=repairs)

    def _edited(self, fe: FileEdit, text: Text, before: bytes | None, tiers: tuple[str, ...], path: str, pol: Policy,
                ) -> tuple[Text, list[tuple[int, int, int, int]] | None, list[str], list[str]] | list[Finding]:
        """The file's new text for `fe`'s changes, with the diff's regions (None: diff it whole),
        repairs and notes; or the findings that refuse it."""
        ordered = _ordered(fe)
        stale_base = self._stale_base(fe, before) if "3way" in tiers else None
        if stale_base is not None:
            # Against the very text it names, an edit needs no fuzz.
            exact = tuple(t for t in tiers if t != "fuzz")
            out = locate_changes(stale_base, fe.changes, exact, path, ordered)
            if not out.findings:
                edited, _ = apply_splices(stale_base, out.splices)
                merged, conflict = rebase.onto_base(stale_base, text, edited, path)
                if conflict is None:
                    return merged, None, out.repairs + ["3way"], out.notes
                # As `git apply --3way`: hunks that still fit the file exactly apply directly.
                now = locate_changes(text, fe.changes, exact, path, ordered)
                if now.findings:
                    return [conflict]
                new_text, regions = apply_splices(text, now.splices)
                return new_text, regions, now.repairs, now.notes
            # It does not fit the base it names (an index line copied from another diff):
            # read it as an edit of the file as it is, like any other.
        out = locate_changes(text, fe.changes, tiers, path, ordered)
        if out.findings:
            return list(out.findings)
        if before is not None and any(isinstance(c, Snippet) for c in fe.changes):
            earlier = rebase.snippet_onto_file(text, self._earlier(path, before, pol), fe.changes, tiers, path)
            if isinstance(earlier, Finding):
                return [earlier]
            if earlier is not None:
                return earlier[0], None, earlier[1], out.notes
        if any(sp.seen is not None for sp in out.splices):
            merged, conflict = rebase.onto_file(text, out.splices, path)
            return [conflict] if conflict is not None else (merged, None, out.repairs, out.notes)
        new_text, regions = apply_splices(text, out.splices)
        return new_text, regions, out.repairs, out.notes

    def _since_seen(self, fe: FileEdit, text: Text, seen: Sequence[str], tiers: tuple[str, ...], path: str
                    ) -> tuple[Text, list[str]] | Finding | None:
        """An edit made against a version the agent saw (read, or wrote) merged onto the file as it
        is now by git's rule: (text, repairs); the conflict; or None when it fits no such version."""
        exact = tuple(t for t in tiers if t != "fuzz")
        for oid in seen:
            base = decode_or_none(self.repo.read_blob(oid))
            if base is None:
                continue
            if fe.content is not None:
                edited, repairs = _whole(base, fe.content, True)
            else:
                out = locate_changes(base, fe.changes, exact, path, _ordered(fe))
                if out.findings:
                    continue
                edited, _ = apply_splices(base, out.splices)
                repairs = out.repairs
            merged, conflict = rebase.onto_base(base, text, edited, path)
            if conflict is not None:
                return replace(conflict, message=f"{path} changed since the agent last saw it (read_before_edit); "
                                                 + conflict.message)
            return merged, repairs + ["3way"]
        return None

    def _stale_base(self, fe: FileEdit, before: bytes | None) -> Text | None:
        """The edit's own base when it differs from the file and git still has it."""
        if not fe.base or before is None or len(fe.base) < 7:
            return None
        current = self.repo.hash_blob(before)
        if current.startswith(fe.base.lower()):
            return None
        return decode_or_none(self.repo.read_blob(fe.base))

    def _delete(self, fe: FileEdit, path: str, before: bytes | None, old_mode: int | None, tiers: tuple[str, ...]) -> tuple[FileChange | None, list[Finding], list[str]]:
        assert before is not None
        if fe.changes:
            text = decode(before)
            out = locate_changes(text, fe.changes, tiers, path, True)
            if out.findings:
                return None, list(out.findings), []
            left, _ = apply_splices(text, out.splices)
            if left.lines:
                return None, [error("stale", path, 1,
                                    f"{path} holds {plural(len(left.lines), 'line')} the delete does not show",
                                    "re-read the file: it changed since the patch was made")], []
        change = diffs.make_change(path, Op.DELETE, before, None, old_mode=old_mode)
        return change, [], []

    # ------------------------------------------------------------------ events

    def _event(self, kind: str, agent: str, turn: str | None, report: Report, size: int, started: float,
               tool: str | None = None) -> None:
        try:
            from . import events
        except ImportError:
            return
        # The outcome log must never turn an apply into a failure: `record` swallows its errors.
        events.record(self.repo.commondir, kind, agent, turn, report, size, time.monotonic() - started, tool=tool)


def _over_byte_budget(size: int, pol: Policy) -> Finding | None:
    """The per-edit input budget, judged before parsing: a 50 MB patch is refused in
    constant time and memory instead of being parsed, located and diffed first."""
    limit = pol.budget("per_edit").get("bytes")
    if limit is None or size <= limit or pol.level("budget") != "error":
        return None
    setting = "budget.per_edit.bytes"
    return error("budget", None, None,
                 f"this edit would reach {size:,} bytes of edit input; the limit is {limit:,} "
                 f"({setting}, from {pol.source(setting)})",
                 "split the change into smaller edits")


def swapped_path(exc: worktree.UnsafePath) -> Finding:
    """A folder became a symlink between the checks and the write (which then undid itself)."""
    return error("path-outside", None, None,
                 f"{exc} at write time (it was a plain folder when the edit was checked); nothing was written",
                 "something replaced a folder with a symbolic link while the edit ran; check the repository, then retry")


def ref_locked(repo: GitRepo, ref: str) -> Finding | None:
    """A refusal when git's lock file for the agent's ledger ref is there: the turn could not be recorded."""
    lock = repo.lock_of(ref)
    return lock_finding(ref, lock) if lock is not None else None


def lock_finding(ref: str, lock: Path) -> Finding:
    return error(
        "stale", None, None,
        f"the ledger ref {ref} is locked: {lock} exists, so no turn can be recorded (nothing was changed)",
        "another git or agent-guard command may be updating it: wait and retry. If none is running "
        f"(`ps` shows no git and no agent-guard), the lock was left by one that died: remove it "
        f"(rm '{lock}') and retry",
    )


def _outside_sparse(path: str, creates: bool) -> Finding:
    """`path` is tracked, but a sparse checkout leaves it out of the work tree."""
    folder = path.rpartition("/")[0] or "."
    hint = f"ask the user to `git sparse-checkout add {folder}` first, or leave {path} out of the edit"
    if creates:
        return error("exists", path, None,
                     f"{path} is tracked by git but outside the sparse checkout; a new file there would shadow it", hint)
    return error("missing", path, None,
                 f"{path} is outside the sparse checkout: git tracks it, but it is not in the work tree", hint)


def _is_folder(p: Path) -> bool:
    return p.is_dir() and not p.is_symlink()


def _snippet_not_file(path: str, text: Text, content: str, audience: Audience = CLI) -> Finding | None:
    """A fenced block taken for all of `path` (auto-detected) that is far shorter than the file:
    most likely a snippet of it, which written whole would delete the rest."""
    old_n = len(text.lines)
    new_n = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    if new_n * 2 >= old_n or old_n - new_n <= 5:
        return None
    return error(
        "parse-error", path, None,
        f"the input was read as the whole new text of {path} (a fenced block under its name), but it holds "
        f"{new_n} line{'s' if new_n != 1 else ''} where {path} has {old_n}: it reads as a snippet of the file, "
        "and written whole it would delete the rest",
        "to change part of the file, send a diff or SEARCH/REPLACE blocks; to replace the whole file, "
        + audience.whole_file(),
    )


def _whole(text: Text, content: str, existed: bool) -> tuple[Text, list[str]]:
    """A whole-file write, keeping the file's BOM and (uniform) line endings."""
    bom = text.bom
    if content.startswith("\ufeff"):
        content, bom = content[1:], True
    new = split(content, bom)
    repairs: list[str] = []
    if existed and text.lines and all(e == "\r\n" for e in text.eols if e) and all(e != "\r\n" for e in new.eols):
        new = Text(new.lines, tuple("\r\n" if e else "" for e in new.eols), bom)
        repairs.append("eol")
    return new, repairs
