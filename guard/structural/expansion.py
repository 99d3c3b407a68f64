"""The engine's side of a structural rewrite: from ``Rewrite`` values to ordinary ``FileEdit`` values.

``expand`` runs under the repository lock, before anything else sees the edit:

1. the files: those git tracks (HEAD or the index), and those this agent's own turns
   created (``target.tracked_for``: not ignored); regular files only, present in the work
   tree; of them, those a rewrite's paths name (``globs``) in its language (named, or by
   each file's extension).  One the agent may neither read nor change refuses the rewrite
   (`path-protected`) before any file is read, so the answer never depends on what it holds;
2. each pattern is checked in each language it meets (``matches.problem``): a pattern
   ast-grep will not take is refused as `parse-error`, in ast-grep's words;
3. the rewrites run in order over each file's text (``matches.rewrite``);
4. refusals: a metavariable of `to` a match left unbound (`parse-error`); a rewrite that
   matched nothing (`not-found`, saying when the pattern is no code of the language);
   more matches than ``budget.per_edit.hunks`` or files than ``budget.per_edit.files``
   (`budget`, with the count and the first matches);
5. every file whose text changed becomes a ``FileEdit`` (from the top of the repository)
   of ``LineRange`` changes, each naming the lines it replaces (``expect``).

From there the edit goes where every edit goes: protected paths and control files,
tracked-only, the checks and budgets, all-or-nothing, the ledger.  A file the rewrites
matched but left as it was is no change (`no-op`, at the policy's level, when none changes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..files import paths, redaction
from ..model import EditSet, FileEdit, Finding, LineRange, Op, PathBase, Rewrite, error
from ..repo import EXEC, FILE
from ..text.textfile import BOM, NotText, decode, split
from ..text.wording import clip, plural
from ..tree import worktree
from ..tree.diffs import opcodes
from . import globs, languages, matches, template
from .languages import Language

if TYPE_CHECKING:
    from ..files.workspace import Workspace
    from ..policy import Policy

SHOWN = 10  # matches a refusal lists
# Past this many times the budget, counting stops: the answer is already no.
_STOP = 10


@dataclass(frozen=True, slots=True)
class Expanded:
    """What expanding gives: the edit with file edits in place of rewrites (None: refused), findings, notes."""

    edits: EditSet | None
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Site:
    """A match, for messages: where it was and what it matched."""

    path: str
    line: int
    text: str

    def __str__(self) -> str:
        first = self.text.split("\n", 1)[0]
        return f"{self.path}:{self.line}: {clip(first, 100)}" + (" …" if "\n" in self.text else "")


PROTECTED = "(a protected file: its lines are not shown)"


def _refused(finding: Finding) -> Expanded:
    return Expanded(None, (finding,))


def _missing() -> Expanded:
    return _refused(
        error(
            "parse-error",
            None,
            None,
            "structural rewrites need ast-grep's Python binding (the package ast-grep-py), which is not installed here",
            f"install it where agent-guard runs ({matches.INSTALL}), or send the change as a diff or str_replace edits",
        )
    )


def _files(ws: Workspace, pol: Policy, agent: str) -> list[str]:
    """Regular files git tracks, and those this agent's turns created (not ignored), sorted."""
    from ..files.target import tracked_for
    from ..record import ledger

    tracked = ws.repo.tracked_files()
    out = {p for p, mode in tracked.items() if mode in (FILE, EXEC)}
    tip = ws.repo.ref(ledger.ref_for(ws.repo, pol.ledger_prefix, agent))
    if tip is not None:
        own = tracked_for(ws, pol, agent)
        for path, mode in ws.repo.tree_files(ws.repo.commit_tree(tip)).items():
            if path not in tracked and mode in (FILE, EXEC) and own(path):
                out.add(path)
    return sorted(out)


@dataclass(frozen=True, slots=True)
class _Plan:
    """One rewrite's files (each with its language), and what its paths left out."""

    targets: tuple[tuple[str, Language], ...]
    other_languages: int


def _plan(ws: Workspace, rw: Rewrite, n: int, files: list[str], here: str, ignorecase: bool) -> _Plan | Finding:
    scopes: list[globs.Scope] = []
    for raw in rw.paths:
        for alt in globs.alternatives(raw):
            sc = globs.scope(ws.root, here, alt)
            if isinstance(sc, Finding):
                return sc
            scopes.append(sc)
    named = languages.named(rw.language) if rw.language else None
    targets: list[tuple[str, Language]] = []
    other = 0
    for path, exact in globs.selected(scopes, files, ignorecase).items():
        lang = languages.of_path(path)
        if named is not None and (exact or lang == named):
            targets.append((path, named))
        elif named is None and lang is not None:
            targets.append((path, lang))
        elif exact and named is None:
            return error(
                "parse-error",
                path,
                None,
                f"rewrite #{n} names {path}, whose language ast-grep cannot tell by its name",
                f'say which it is: "language": one of {languages.NAMES}',
            )
        else:
            other += 1
    return _Plan(tuple(targets), other)


def _sealed(rewrites: Sequence[Rewrite], plans: Sequence[_Plan], pol: Policy) -> Finding | None:
    """`path-protected` when a rewrite would look in a file the agent may neither read nor change.

    Decided by the paths alone, before any file is read: refused only where the pattern matched,
    such a file would answer "path-protected" to a right guess at its contents and "not-found"
    (or "applied", elsewhere) to a wrong one.  A file the agent may read, or change with a
    warning, is looked in as any other: its answer tells nothing the agent could not learn."""
    for n, (rw, plan) in enumerate(zip(rewrites, plans), 1):
        closed = [(path, refusal) for path, _lang in plan.targets if (refusal := _closed(path, pol)) is not None]
        if closed:
            return _sealed_refusal(n, rw, closed)
    return None


def _closed(path: str, pol: Policy) -> Finding | None:
    """The refusal an edit of `path` gets, when the agent may neither change it nor read it; else None."""
    refusal = paths.protected_finding(path, pol)
    if refusal is None or refusal.severity != "error" or not redaction.sealed(path, pol):
        return None
    return refusal


def _sealed_refusal(n: int, rw: Rewrite, closed: Sequence[tuple[str, Finding]]) -> Finding:
    first, why = closed[0]
    others = [path for path, _refusal in closed[1:]]
    also = f"; so {'is' if len(others) == 1 else 'are'} {', '.join(others[:SHOWN])}" if others else ""
    more = f" and {len(others) - SHOWN:,} more" if len(others) > SHOWN else ""
    return error(
        "path-protected",
        first,
        None,
        f"the paths of rewrite #{n} ({', '.join(rw.paths)}) name {first}, a file agents may neither read nor change "
        f"({why.message}){also}{more}",
        "narrow `paths` so that they name no protected file (a folder or a glob that leaves it out): a rewrite is "
        "refused when its paths name one, whether or not the pattern matches there, so that the answer says nothing "
        "of what the file holds",
    )


def _pattern_problems(rw: Rewrite, n: int, langs: Sequence[Language]) -> list[Finding]:
    out: list[Finding] = []
    for lang in dict.fromkeys(langs):
        said = matches.problem(rw.pattern, rw.selector, lang)
        if said is None:
            continue
        what = f"with selector {rw.selector!r} " if rw.selector else ""
        out.append(
            error(
                "parse-error",
                None,
                rw.source_line or None,
                f"ast-grep cannot take the pattern {clip(rw.pattern, 80)!r} of rewrite #{n} {what}as {lang.name}: {said}",
                "a pattern is one node of code (an expression, a statement, a declaration: `foo($$$ARGS)`); to match "
                'part of a larger construct (a method, a field), write the construct around it and give "selector": '
                "the kind of the node to match",
            )
        )
    return out


def _read(ws: Workspace, path: str) -> tuple[str, bool] | None:
    """A file's text (without its BOM) and whether it had one; None: absent, not a regular file, not UTF-8 text."""
    try:
        data, _mode = worktree.read(ws.root, path)
    except worktree.UnsafePath:
        return None
    if data is None:
        return None
    try:
        decode(data)
    except NotText:
        return None
    bom = data.startswith(BOM)
    return (data[len(BOM) :] if bom else data).decode("utf-8"), bom


def expand(ws: Workspace, edits: EditSet, pol: Policy, agent: str, here: str = "") -> Expanded:
    """`edits` with its rewrites made into file edits (see the module doc), or the refusal.

    The module doc's steps: the files and patterns (``_plans``), the files' texts (``_texts``),
    the rewrites run (``_run``), the refusals (``_refusal``), the file edits (``_made``).
    """
    try:
        matches.problem("$A", None, languages.LANGUAGES[0])  # the binding is there, and works
    except matches.Unavailable:
        return _missing()
    plans = _plans(ws, edits, pol, agent, here)
    if isinstance(plans, Expanded):
        return plans
    read = _texts(ws, plans)
    run = _run(edits, plans, read, pol)
    refused = _refusal(edits, plans, run, read, pol)
    if refused is not None:
        return refused
    return _made(edits, plans, run, read, pol)


def _plans(ws: Workspace, edits: EditSet, pol: Policy, agent: str, here: str) -> list[_Plan] | Expanded:
    """Each rewrite's files, in their languages, once every pattern is one ast-grep takes in each."""
    files = _files(ws, pol, agent)
    ignorecase = ws.repo.ignores_case()
    plans: list[_Plan] = []
    for n, rw in enumerate(edits.rewrites, 1):
        plan = _plan(ws, rw, n, files, here, ignorecase)
        if isinstance(plan, Finding):
            return _refused(plan)
        plans.append(plan)
    sealed = _sealed(edits.rewrites, plans, pol)
    if sealed is not None:
        return _refused(sealed)
    problems = [
        f
        for n, (rw, plan) in enumerate(zip(edits.rewrites, plans), 1)
        for f in _pattern_problems(rw, n, [lang for _p, lang in plan.targets])
    ]
    if problems:
        return Expanded(None, tuple(problems))
    return plans


@dataclass(frozen=True, slots=True)
class _Read:
    """The files the rewrites look at, as read: each one's text (without its BOM) and whether it
    had a BOM, and the files that are not UTF-8 text (or not in the work tree)."""

    texts: dict[str, str]
    boms: dict[str, bool]
    unreadable: set[str]


def _texts(ws: Workspace, plans: list[_Plan]) -> _Read:
    """The files the rewrites look at, read."""
    texts: dict[str, str] = {}
    boms: dict[str, bool] = {}
    unreadable: set[str] = set()
    for plan in plans:
        for path, _lang in plan.targets:
            if path in texts or path in unreadable:
                continue
            got = _read(ws, path)
            if got is None:
                unreadable.add(path)
            else:
                texts[path], boms[path] = got
    return _Read(texts, boms, unreadable)


@dataclass(frozen=True, slots=True)
class _Run:
    """What running the rewrites gave: the files' texts after them, each one's count of matches,
    the first matches (for a refusal), the matches holding more than their pattern (with the
    rewrite's number), the files matched (each with the line of the first rewrite that did), the
    matches in all, the unbound metavariables, and whether counting stopped far past the budget."""

    texts: dict[str, str]
    counts: tuple[int, ...]
    sites: tuple[_Site, ...]
    partial: tuple[tuple[int, _Site], ...]
    touched: dict[str, int]
    total: int
    unbound: tuple[Finding, ...]
    stopped: bool


def _run(edits: EditSet, plans: list[_Plan], read: _Read, pol: Policy) -> _Run:
    """The rewrites run in order over each file's text as read (`read` keeps the texts it had);
    past ``_STOP`` times the budget (when it refuses), counting stops."""
    texts = dict(read.texts)
    hunks, files_limit = pol.budget("per_edit").get("hunks"), pol.budget("per_edit").get("files")
    enforce = pol.level("budget") == "error"
    counts: list[int] = []
    sites: list[_Site] = []
    partial: list[tuple[int, _Site]] = []  # (rewrite number, a match holding more than its pattern)
    touched: dict[str, int] = {}  # path -> line of the first rewrite that matched it
    total = 0
    findings: list[Finding] = []
    stopped = False
    for n, (rw, plan) in enumerate(zip(edits.rewrites, plans), 1):
        parsed = template.slots(rw.to)
        count = 0
        for path, lang in plan.targets:
            if path not in texts:
                continue
            done = matches.rewrite(texts[path], lang, rw.pattern, rw.selector, rw.to, parsed)
            if not done.matches:
                continue
            texts[path] = done.text
            count += len(done.matches)
            touched.setdefault(path, rw.source_line)
            _seen(n, path, done, pol, sites, partial, findings)
            if enforce and _past(total + count, len(touched), hunks, files_limit, _STOP):
                stopped = True
                break
        counts.append(count)
        total += count
        if stopped:
            break
    return _Run(texts, tuple(counts), tuple(sites), tuple(partial), touched, total, tuple(findings), stopped)


def _seen(
    n: int,
    path: str,
    done: matches.Rewritten,
    pol: Policy,
    sites: list[_Site],
    partial: list[tuple[int, _Site]],
    findings: list[Finding],
) -> None:
    """Rewrite #n's matches in `path`, kept for messages: the first few (`sites`), those holding
    more than the pattern (`partial`), and a `parse-error` for each unbound metavariable."""
    # A file the agent may not read is named, never quoted (guard/files/redaction.py).
    quote = (lambda _text: PROTECTED) if redaction.sealed(path, pol) else (lambda text: text)
    sites += [_Site(path, m.line, quote(m.text)) for m in done.matches[: SHOWN - len(sites)]] if len(sites) < SHOWN else []
    partial += [(n, _Site(path, m.line, quote(m.text))) for m in done.partial]
    for name, m in done.unbound:
        findings.append(
            error(
                "parse-error",
                path,
                m.line,
                f"`to` of rewrite #{n} uses ${name}, which the match at {path}:{m.line} "
                f"({clip(quote(m.text).split(chr(10), 1)[0], 60)!r}) does not bind: ast-grep would put nothing "
                "in its place",
                f"${name} is in the pattern only as text (inside a string, a comment or a longer name), "
                "not as a node of its own: make it a whole node of the pattern, or leave it out of `to`",
            )
        )


def _refusal(edits: EditSet, plans: list[_Plan], run: _Run, read: _Read, pol: Policy) -> Expanded | None:
    """The refusal, in this order: an unbound metavariable, a match holding more than its
    pattern, over the budget, a rewrite that matched nothing; None when none applies."""
    if run.unbound:
        return Expanded(None, run.unbound[:1])
    if run.partial:
        return _refused(_partial(edits.rewrites, plans, run.partial))
    hunks, files_limit = pol.budget("per_edit").get("hunks"), pol.budget("per_edit").get("files")
    if pol.level("budget") == "error" and _past(run.total, len(run.touched), hunks, files_limit, 1):
        return _refused(_over_budget(run.total, len(run.touched), hunks, files_limit, pol, run.sites, run.stopped))
    for n, (rw, plan, count) in enumerate(zip(edits.rewrites, plans, run.counts), 1):
        if not count:
            looked = len([p for p, _l in plan.targets if p in read.texts])
            return _refused(_not_found(rw, n, plan, looked, len(read.unreadable)))
    return None


def _made(edits: EditSet, plans: list[_Plan], run: _Run, read: _Read, pol: Policy) -> Expanded:
    """Every file whose text changed as a file edit, with notes on what the rewrites matched and
    left out; no change (`no-op`) when none changed."""
    notes: list[str] = []
    changed = [p for p in run.touched if run.texts[p] != read.texts[p]]
    described = (
        "; ".join(f"rewrite #{n} matched {plural(c, 'place')}" for n, c in enumerate(run.counts, 1))
        + f" in {plural(len(run.touched), 'file')}"
    )
    notes.append(f"structural: {described}")
    skipped = sum(p.other_languages for p in plans)
    if skipped:
        notes.append(f"structural: left out {plural(skipped, 'file')} its paths name in other languages")
    if read.unreadable:
        notes.append(
            f"structural: left out {plural(len(read.unreadable), 'file')} that are not UTF-8 text (or not in the work tree)"
        )
    if not changed:
        level = pol.level("no-op")
        said = (
            []
            if level == "off"
            else [
                Finding(
                    "no-op",
                    level,
                    None,
                    None,
                    f"the rewrite matches {plural(run.total, 'place')} but changes nothing",
                    "make `to` differ from what the pattern matches",
                )
            ]
        )
        return Expanded(edits._replace(rewrites=()), tuple(said), tuple(notes))
    made = tuple(_file_edit(p, read.texts[p], run.texts[p], read.boms[p], run.touched[p]) for p in changed)
    return Expanded(edits._replace(files=edits.files + made, rewrites=()), (), tuple(notes))


def _past(count: int, files: int, hunks: int | None, files_limit: int | None, times: int) -> bool:
    return (hunks is not None and count > hunks * times) or (files_limit is not None and files > files_limit * times)


def _over_budget(
    count: int, files: int, hunks: int | None, files_limit: int | None, pol: Policy, sites: Sequence[_Site], stopped: bool
) -> Finding:
    more = "more than " if stopped else ""
    limits = []
    if hunks is not None and count > hunks:
        limits.append(f"{hunks:,} places (budget.per_edit.hunks, from {pol.source('budget.per_edit.hunks')})")
    if files_limit is not None and files > files_limit:
        limits.append(f"{files_limit:,} files (budget.per_edit.files, from {pol.source('budget.per_edit.files')})")
    shown = "\n".join(str(s) for s in sites[:SHOWN])
    rest = count - min(len(sites), SHOWN)
    return error(
        "budget",
        None,
        None,
        f"this rewrite would change {more}{plural(count, 'place')} in {more}{plural(files, 'file')}; "
        f"one edit may change {' and '.join(limits)}",
        "narrow `paths` or the pattern and send the rewrite in parts, or ask the user to raise the limit; "
        f"the first matches:\n{shown}" + (f"\n… and {more}{rest:,} more" if rest > 0 else ""),
    )


def _unparsed(rw: Rewrite, langs: Sequence[Language]) -> str:
    """ "; the pattern is no LANG code on its own: ..." for the first language it does not parse in, else ""."""
    for lang in dict.fromkeys(langs):
        found = matches.syntax_error(rw.pattern, lang)
        if found is not None:
            line, column, text = found
            at = f"line {line}, column {column}" if line > 1 else f"column {column}"
            return f"; the pattern is no {lang.name} code on its own: it does not parse at {at} ({clip(text, 40)!r})"
    return ""


def _partial(rewrites: Sequence[Rewrite], plans: Sequence[_Plan], partial: Sequence[tuple[int, _Site]]) -> Finding:
    n, first = partial[0]
    rw = rewrites[n - 1]
    shown = "\n".join(str(site) for _n, site in partial[:SHOWN])
    more = f"\n… and {len(partial) - SHOWN:,} more" if len(partial) > SHOWN else ""
    return error(
        "parse-error",
        first.path,
        first.line,
        f"the pattern {clip(rw.pattern, 80)!r} of rewrite #{n} matches more than it says at {first.path}:{first.line} "
        f"({clip(first.text.split(chr(10), 1)[0], 60)!r}): ast-grep passes over what a pattern leaves out (a `;`, a comma, "
        "a comment, or code after it) and a rewrite replaces the whole match, so that text would be lost"
        + _unparsed(rw, [lang for _p, lang in plans[n - 1].targets]),
        "write the pattern for the whole construct (with its `;`, the rest of the declaration, the body: "
        "`def $F($$$P): $$$BODY`), with metavariables for what varies, kept in `to`; "
        f"{plural(len(partial), 'match is', 'matches are')} like this:\n{shown}{more}",
    )


def _not_found(rw: Rewrite, n: int, plan: _Plan, looked: int, unreadable: int) -> Finding:
    where = ", ".join(rw.paths)
    if not looked:
        others = f" ({plural(plan.other_languages, 'file')} of other languages left out)" if plan.other_languages else ""
        unread = f" ({plural(unreadable, 'file')} not UTF-8 text)" if unreadable else ""
        kind = f" of {rw.language}" if rw.language else " in a language ast-grep reads"
        return error(
            "not-found",
            None,
            rw.source_line or None,
            f"rewrite #{n} has no file to look in: its paths ({where}) name no tracked file{kind}{others}{unread}",
            "paths are globs, folders or files from the current folder (globs as in .gitignore: `src/**/*.ts`); "
            "only files git tracks (and those this agent created) are rewritten",
        )
    said = f" of {rw.language}" if rw.language else ""
    bad = _unparsed(rw, [lang for _p, lang in plan.targets])
    return error(
        "not-found",
        None,
        rw.source_line or None,
        f"the pattern {clip(rw.pattern, 80)!r} of rewrite #{n} matches nothing in the {plural(looked, 'file')}{said} "
        f"its paths name ({where}){bad}",
        "ast-grep matches syntax, not text: the pattern must be code of the language with metavariables where it "
        "varies ($NAME one node, $$$NAME several: `print($$$ARGS)`). A snippet read alone can parse as another "
        "construct than in a file (in Go, `fmt.Println($A)` alone is a type conversion): write the code around it "
        'and give "selector", the kind of the node to match. Check the pattern against a line it should match, '
        "or widen `paths`",
    )


def _file_edit(path: str, old: str, new: str, bom: bool, line: int) -> FileEdit:
    """The change from `old` to `new` as line ranges of `old`, each naming the lines it replaces."""
    a, b = split(old, bom), split(new, bom)
    ranges: list[list[int]] = []
    for _tag, a0, a1, b0, b1 in opcodes(a.lines, b.lines):
        if ranges and a0 <= ranges[-1][1]:
            ranges[-1][1], ranges[-1][3] = max(a1, ranges[-1][1]), max(b1, ranges[-1][3])
        else:
            ranges.append([a0, a1, b0, b1])
    changes = tuple(
        LineRange(
            a0 + 1,
            a1,
            tuple(t + ("\r" if e == "\r\n" else "") for t, e in zip(b.lines[b0:b1], b.eols[b0:b1])),
            expect=a.lines[a0:a1],
            source_line=line,
        )
        for a0, a1, b0, b1 in ranges
    )
    return FileEdit(path, Op.MODIFY, changes=changes, source_line=line, path_base=PathBase.ROOT)
