"""Conformance of `agent-guard apply` against the public corpora (run by hand).

Reads ``../shared/corpora`` (never copied into this repository) and runs:

- ``codex-scenarios``: every scenario, with ``agent-guard-expectations.json``
  (where Codex overwrites or half-applies, agent-guard must refuse and change nothing);
- ``git-apply``: the apply and refuse cases of ``cases.json``, and its parse-stat
  cases through ``guard.dialects.parse``;
- ``whatthepatch``: the apply cases of ``cases.json``, and the parse outcome of
  every casefile;
- ``unidiff-samples``: parse only (``expected.json``); where the suggested outcome
  is a refusal that needs no base file (binary, a path outside, a symlink), the
  diff is also applied to an empty repository and must be refused.

Each apply case runs in a fresh git repository holding the ``before`` files,
committed; each patch goes through ``agent-guard apply --json`` in-process
(``guard.cli.commands.main``); the work tree (``.git`` excluded) is compared byte for byte
with the expected one, and a refusal must exit 1 with tree and refs unchanged.

Where agent-guard decides otherwise than a corpus (by design), the case is listed
in ``DIVERGENCES`` below with what we do instead and why; the data is never edited.

    python bench/conformance.py [--corpus NAME] [-v]

Exit status 0 when every case passes or diverges as listed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
CORPUS_NAMES = ("codex-scenarios", "git-apply", "whatthepatch", "unidiff-samples")

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Conformance",
    "GIT_AUTHOR_EMAIL": "conformance@example.com",
    "GIT_COMMITTER_NAME": "Conformance",
    "GIT_COMMITTER_EMAIL": "conformance@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_TERMINAL_PROMPT": "0",
}


def policy_yaml(**levels: str) -> str:
    """The default policy with some checks set to other levels."""
    return "extends: default\nchecks:\n" + "".join(f"  {k}: {v}\n" for k, v in levels.items())


# ---------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class CorpusFile:
    """The content of a file of the case's corpus folder (in expectations written here)."""

    name: str


@dataclass(frozen=True)
class Expect:
    """What a case must do.

    kind "applied": exit 0 and the tree equals `after`; "refused": exit 1, tree and
    refs unchanged; "parse": `guard.dialects.parse` gives `files` (per-file stats), or
    with `files=None` a parse-error; "parse-ok": it parses (stats not compared);
    "parse-refuse": the input must not become an applicable edit (a parse-error, or
    `codes` when applied to an empty repository); "skip": not run.
    """

    kind: str
    after: Mapping[str, bytes | CorpusFile] | None = None
    files: list[dict[str, Any]] | None = None
    codes: tuple[str, ...] = ()  # acceptable finding codes of a refusal (empty: any)
    repairs: tuple[str, ...] = ()  # repairs the (last) apply or the parse must report


@dataclass(frozen=True)
class Divergence:
    expect: Expect
    why: str


def _refuse(*codes: str) -> Expect:
    return Expect("refused", codes=codes)


# Every case where agent-guard deliberately does something other than what the corpus
# (or, for Codex, upstream's expected/) says.  Key: (corpus, case id).  Entries marked
# "decision" are policy choices the team should confirm; the others follow the corpus'
# own reading of the contract.
DIVERGENCES: dict[tuple[str, str], Divergence] = {
    # Codex's expected/ overwrites or half-applies; agent-guard is atomic and never
    # overwrites.  (The corpus lists these three as divergent.)
    ("codex-scenarios", "010_move_overwrites_existing_destination"): Divergence(
        _refuse("exists"), "Codex moves onto an existing file; agent-guard refuses `exists`, tree == input/"
    ),
    ("codex-scenarios", "011_add_overwrites_existing_file"): Divergence(
        _refuse("exists"), "Codex's Add File overwrites; agent-guard refuses `exists`, tree == input/"
    ),
    ("codex-scenarios", "015_failure_after_partial_success_leaves_changes"): Divergence(
        _refuse("missing"), "Codex leaves created.txt behind; agent-guard refuses the envelope whole, tree stays empty"
    ),
    # Optional cases that need a feature agent-guard does not have.
    ("whatthepatch", "unified-reverse-tzu-to-lao"): Divergence(
        Expect("skip"), "optional: needs reverse apply (git apply -R); agent-guard has no reverse mode"
    ),
    ("whatthepatch", "unified2-reverse-efg-to-abc"): Divergence(
        Expect("skip"), "optional: needs reverse apply (git apply -R); agent-guard has no reverse mode"
    ),
    ("git-apply", "t4135-inline-svn-delete"): Divergence(
        _refuse("missing", "parse-error", "path-outside"),
        "optional: needs -p2; agent-guard has no -p option (refused: the hunk header '@@ +1 0,0 @@' is unreadable)",
    ),
    # The contract has no `copy` op.
    ("git-apply", "t4100-2"): Divergence(
        Expect("parse", files=None), "copies are refused with a parse-error (the contract's ops have no copy)"
    ),
    ("git-apply", "t4100-2-recount"): Divergence(
        Expect("parse", files=None), "copies are refused with a parse-error (the contract's ops have no copy)"
    ),
    # decision: guard/files/paths.py refuses control characters (TAB included) in any path.
    ("git-apply", "t4135-git-with-tab"): Divergence(
        _refuse("path-outside"), "decision: a TAB in a file name is refused (paths.resolve: control character)"
    ),
    ("git-apply", "t4135-diff-with-tab"): Divergence(
        _refuse("path-outside"), "decision: a TAB in a file name is refused (paths.resolve: control character)"
    ),
    ("git-apply", "t4135-add-with-tab"): Divergence(
        _refuse("path-outside"), "decision: a TAB in a file name is refused (paths.resolve: control character)"
    ),
    # decision: the `fuzz` tier (default) lets one of three context lines differ.
    ("whatthepatch", "unified-bad2-on-lao"): Divergence(
        Expect("applied", after={"tzu": CorpusFile("tzu")}, repairs=("fuzz",)),
        "decision: hunk 2's context line 'The two are te same,' differs from the file; the fuzz tier applies it "
        "(as GNU patch's fuzz would) and reports the `fuzz` repair; the result is exactly tzu",
    ),
    # decision: the unified parser trusts a hunk's body over its header (`recount`), so
    # lines after the declared length are read as part of the hunk.
    ("whatthepatch", "unified-blah-lao-to-tzu"): Divergence(
        _refuse("not-found"),
        "decision: the 4 junk lines after the last hunk are read into it (body over header), so the hunk does not "
        "match and the edit is refused whole; the finding is not-found, not the parse-error naming line 17 the corpus suggests",
    ),
    ("whatthepatch", "parse:diff-unified-blah.diff"): Divergence(
        Expect("parse", files=[{"path": "tzu", "op": "modify", "added": 6, "removed": 5}]),
        "decision: trailing junk read into the last hunk (body over header): +6 -5 instead of +5 -3",
    ),
    ("unidiff-samples", "sample1.diff"): Divergence(
        Expect("parse-ok", repairs=("recount",)),
        "decision: hunk 2's header says +13 but the body has 10; parsed with the named `recount` repair (git apply --recount)",
    ),
    ("unidiff-samples", "sample6.diff"): Divergence(
        Expect("parse-ok", repairs=("recount",)),
        "decision: a hunk that runs past its declared length is recounted (`recount`); it cannot match a real file",
    ),
    ("unidiff-samples", "sample7.diff"): Divergence(
        Expect("parse-ok", repairs=("recount",)),
        "decision: a last hunk one line short of its declared counts at end of input is recounted (`recount`)",
    ),
    # decision: a last line with neither newline nor `\ No newline` marker is accepted;
    # the result gets a final newline (which the blob ids on the index lines confirm).
    ("whatthepatch", "parse:git-oneline-add.diff"): Divergence(
        Expect("parse", files=[{"path": "oneline.txt", "op": "create", "added": 1, "removed": 0}]),
        "decision: accepted (the file gets a final newline); no repair is named for it",
    ),
    ("whatthepatch", "parse:git-oneline-change.diff"): Divergence(
        Expect("parse", files=[{"path": "oneline.txt", "op": "modify", "added": 1, "removed": 1}]),
        "decision: accepted (the file gets a final newline); no repair is named for it",
    ),
    ("whatthepatch", "parse:git-oneline-rm.diff"): Divergence(
        Expect("parse", files=[{"path": "oneline.txt", "op": "delete", "added": 0, "removed": 1}]),
        "decision: accepted; no repair is named for it",
    ),
    # The corpus calls a parse-error the safe answer for the inconsistent third rename.
    ("unidiff-samples", "git_rename.diff"): Divergence(
        Expect("parse", files=None),
        "the third entry's `rename from/to` disagree with its `diff --git` names: the whole input is a parse-error",
    ),
}

# Failures caused by bugs in guard/ (reported, not fixed here).  The benchmark counts
# them as failures; tests/test_conformance.py marks them xfail(strict=True), so a fix
# shows up as an XPASS that asks for the entry to be removed.
KNOWN_BUGS: dict[tuple[str, str], str] = {}

# ---------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    corpus: str
    id: str
    expect: Expect
    before: dict[str, bytes] = field(default_factory=dict)
    patches: tuple[bytes, ...] = ()
    policy: str | None = None  # policy file text, when the default will not do
    note: str = ""  # what the corpus suggests (finding codes etc.), for diagnoses
    folder: Path | None = None  # the corpus folder (for CorpusFile expectations)
    suggested: tuple[str, ...] = ()  # finding codes the corpus suggests for a refusal (noted, not asserted)

    @property
    def key(self) -> tuple[str, str]:
        return (self.corpus, self.id)


def _tree(folder: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    if not folder.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for f in filenames:
            p = Path(dirpath) / f
            out[p.relative_to(folder).as_posix()] = p.read_bytes()
    return out


def codex_cases(base: Path) -> Iterator[Case]:
    folder = base / "codex-scenarios"
    meta = json.loads((folder / "agent-guard-expectations.json").read_bytes())
    for sc in meta["scenarios"]:
        name = sc["scenario"]
        d = folder / name
        before = _tree(d / "input")
        patch = (d / "patch.txt").read_bytes()
        if sc["agent_guard_result"] == "applied":
            exp = Expect("applied", after=_tree(d / "expected"))
        else:
            exp = Expect("refused")
        suggested = tuple(re.findall(r"[a-z]+(?:-[a-z]+)*", sc.get("suggested_finding") or ""))
        yield Case(
            "codex-scenarios", name, exp, before, (patch,), folder=folder, suggested=tuple(c for c in suggested if c != "or")
        )


def _content(folder: Path, spec: dict[str, Any]) -> bytes:
    if "file" in spec:
        return (folder / str(spec["file"])).read_bytes()
    return str(spec["text"]).encode("utf-8")


def _files(folder: Path, mapping: Any) -> dict[str, bytes]:
    if not isinstance(mapping, dict):
        return {}
    out = {}
    for path, spec in mapping.items():
        out[path] = _content(folder, spec)
    return out


def git_apply_cases(base: Path) -> Iterator[Case]:
    folder = base / "git-apply"
    data = json.loads((folder / "cases.json").read_bytes())
    for c in data["cases"]:
        cid = c["id"]
        if c["kind"] == "parse-stat":
            counted = any(f["added"] or f["removed"] for f in c["files"])
            repairs = ("recount",) if cid.endswith("-recount") and counted else ()
            yield Case(
                "git-apply",
                cid,
                Expect("parse", files=c["files"], repairs=repairs),
                patches=((folder / c["patch"]).read_bytes(),),
                note=c.get("title", ""),
            )
            continue
        before = _files(folder, c.get("before", {}))
        if "patch_text" in c:
            patches: tuple[bytes, ...] = (c["patch_text"].encode("utf-8"),)
        else:
            patches = tuple((folder / p).read_bytes() for p in c.get("patches", [c.get("patch")]) if p)
        suggested: tuple[str, ...] = ()
        note = c.get("title", "")
        if c["kind"] == "refuse" or c.get("outcome") == "refused":
            exp = Expect("refused")
            suggested = ("parse-error",)
        else:
            exp = Expect("applied", after=_files(folder, c["after"]))
        # git's t4109 patches add a blank line at the end of the file, which the default
        # `whitespace: fix` would strip; the corpus asks for a policy that only warns.
        levels = {"whitespace": "warning"} if cid.startswith("t4109") else {}
        policy = policy_yaml(**levels) if levels else None
        if cid.startswith("t4110"):
            exp = replace(exp, repairs=("offset",))  # patch3 and patch5 are 4 lines off
        yield Case("git-apply", cid, exp, before, patches, policy, note, folder, suggested)


def whatthepatch_cases(base: Path) -> Iterator[Case]:
    folder = base / "whatthepatch"
    data = json.loads((folder / "cases.json").read_bytes())
    for c in data["apply"]:
        before = _files(folder, c["before"])
        patch = (folder / c["patch"]).read_bytes()
        suggested: tuple[str, ...] = ()
        if c["outcome"] == "refused":
            exp = Expect("refused")
            suggested = ("not-found",) if "not-found" in c.get("note", "") or "bad" in c["id"] else ("parse-error",)
        else:
            exp = Expect("applied", after=_files(folder, c["after"]))
        note = c.get("note", "")[:160]
        yield Case("whatthepatch", c["id"], exp, before, (patch,), note=note, folder=folder, suggested=suggested)
    for f in data["files"]:
        if f["parse"] == "n/a":
            continue
        patch = (folder / f["file"]).read_bytes()
        suggestion = f.get("agent_guard", "")
        yield Case(
            "whatthepatch",
            "parse:" + f["file"],
            _parse_expect(f["parse"], suggestion, f["files"]),
            patches=(patch,),
            note=suggestion[:160],
        )


def unidiff_cases(base: Path) -> Iterator[Case]:
    folder = base / "unidiff-samples"
    data = json.loads((folder / "expected.json").read_bytes())
    for s in data["samples"]:
        patch = (folder / s["file"]).read_bytes()
        suggestion = s.get("agent_guard", "")
        yield Case(
            "unidiff-samples",
            s["file"],
            _parse_expect(s["parse"], suggestion, s["files"]),
            patches=(patch,),
            note=suggestion[:160],
        )


def _parse_expect(parse: str, suggestion: str, files: list[dict[str, Any]]) -> Expect:
    """Turn a corpus' parse outcome and suggested agent-guard outcome into an Expect."""
    if parse.startswith(("malformed", "unsupported")):
        return Expect("parse", files=None)
    s = suggestion.lower()
    if s.startswith("refuse: binary"):
        return Expect("parse-refuse", codes=("binary",))
    if s.startswith("refuse: path-outside"):
        return Expect("parse-refuse", codes=("path-outside",))
    if "refused with path-outside" in s:  # parses (compare the stats), but must not apply
        return Expect("parse-refuse", files=files, codes=("path-outside",))
    if s.startswith("refuse (creating a symlink)"):
        return Expect("parse-refuse", codes=("path-outside", "binary", "parse-error"))
    return Expect("parse", files=files)


LOADERS: dict[str, Callable[[Path], Iterator[Case]]] = {
    "codex-scenarios": codex_cases,
    "git-apply": git_apply_cases,
    "whatthepatch": whatthepatch_cases,
    "unidiff-samples": unidiff_cases,
}


def load_cases(base: Path = CORPORA, names: tuple[str, ...] = CORPUS_NAMES) -> list[Case]:
    cases: list[Case] = []
    for name in names:
        if (base / name).is_dir():
            cases.extend(LOADERS[name](base))
    return cases


# ---------------------------------------------------------------------- running


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: str  # "pass" | "fail" | "divergence" | "skip"
    detail: str = ""
    remark: str = ""  # a passing case whose finding code differs from the corpus' suggestion


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", errors="replace")


def make_repo(root: Path, files: dict[str, bytes]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for name, data in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "before")


def refs(root: Path) -> str:
    return git(root, "for-each-ref", "--format=%(refname) %(objectname)")


def cli_apply(root: Path, patch: bytes, policy_file: Path | None) -> tuple[int, dict[str, Any] | None, str]:
    """`agent-guard apply --json` in-process: (exit status, JSON or None, stderr)."""
    from click.testing import CliRunner

    from guard.cli.commands import main

    args = ["apply", "--json"]
    if policy_file is not None:
        args += ["--policy", str(policy_file)]
    old = os.getcwd()
    os.chdir(root)
    try:
        with CliRunner().isolation(input=patch) as streams:
            try:
                main(args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            out, err = streams[0].getvalue(), streams[1].getvalue()
    finally:
        os.chdir(old)
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    return code, report, err.decode("utf-8", errors="replace")


def _short(report: dict[str, Any] | None, err: str) -> str:
    if report is None:
        return f"no JSON; stderr: {err.strip()[:200]!r}"
    fs = "; ".join(
        f"{f['code']}@{f.get('path')}:{f.get('line')} {f['message'][:110]}"
        for f in report.get("findings", [])
        if f.get("severity") == "error"
    )
    files = ", ".join(
        f"{f['op']} {f['path']} +{f['added']}-{f['removed']}{' ' + ','.join(f['repairs']) if f['repairs'] else ''}"
        for f in report.get("files", [])
    )
    return f"{report.get('status')} [{report.get('format')}] files: {files or '-'}; errors: {fs or '-'}"


def _tree_diff(want: dict[str, bytes], got: dict[str, bytes]) -> str:
    parts = []
    for p in sorted(set(want) | set(got)):
        if p not in got:
            parts.append(f"{p!r} missing")
        elif p not in want:
            parts.append(f"{p!r} unexpected ({got[p][:60]!r})")
        elif want[p] != got[p]:
            parts.append(f"{p!r} differs: want {want[p][-80:]!r}, got {got[p][-80:]!r}")
    return "; ".join(parts)


def _run_apply(case: Case, exp: Expect, work: Path) -> tuple[bool, str]:
    root = work / "repo"
    make_repo(root, case.before)
    policy_file = None
    if case.policy is not None:
        policy_file = work / "policy.yaml"
        policy_file.write_text(case.policy)
    before_tree, before_refs = _tree(root), refs(root)
    last = ""
    codes: list[str] = []
    repairs: set[str] = set()
    for i, patch in enumerate(case.patches):
        code, report, err = cli_apply(root, patch, policy_file)
        last = f"patch {i + 1}/{len(case.patches)}: exit {code}, {_short(report, err)}"
        codes = [f["code"] for f in (report or {}).get("findings", []) if f.get("severity") == "error"]
        repairs |= {r for f in (report or {}).get("files", []) for r in f.get("repairs", [])}
        if exp.kind == "applied" and code != 0:
            return False, f"expected applied, got exit {code}: {last}"
        if exp.kind == "refused" and i == len(case.patches) - 1 and code != 1:
            return False, f"expected refused (exit 1), got exit {code}: {last}"
        if code == 0 and (report is None or report.get("turn") is None):
            return False, f"applied without recording a turn: {last}"
    got = _tree(root)
    if exp.kind == "applied":
        assert exp.after is not None
        want = {p: (v if isinstance(v, bytes) else _corpus_file(case, v)) for p, v in exp.after.items()}
        if got != want:
            return False, f"tree differs: {_tree_diff(want, got)}; {last}"
        missing = set(exp.repairs) - repairs
        if missing:
            return False, f"applied without the repair(s) {sorted(missing)}: {last}"
        return True, last
    if got != before_tree:
        return False, f"refused but the tree changed: {_tree_diff(before_tree, got)}; {last}"
    if refs(root) != before_refs:
        return False, f"refused but refs changed; {last}"
    if exp.codes and not set(codes) & set(exp.codes):
        return False, f"refused with {codes}, expected one of {list(exp.codes)}; {last}"
    if case.suggested and not set(codes) & set(case.suggested):
        return True, f"{SUGGESTION_MARK} suggested {list(case.suggested)}, got {codes}; {last}"
    return True, last


SUGGESTION_MARK = "[finding differs from the corpus' suggestion]"


def _corpus_file(case: Case, ref: CorpusFile) -> bytes:
    assert case.folder is not None, case.id
    data: bytes = (case.folder / ref.name).read_bytes()
    return data


def _count_lines(content: str) -> int:
    # Lines as git counts them: split on LF only (str.splitlines also splits on CR etc.).
    return content.count("\n") + (1 if content and not content.endswith("\n") else 0)


def parse_summary(data: bytes) -> tuple[str, list[dict[str, Any]], str]:
    """(status, per-file stats, message): status "ok", "parse-error", "binary" or "not-utf8".

    The message of an "ok" parse names the dialect and the parse-level repairs."""
    from guard import dialects
    from guard.model import ADDED, REMOVED, Hunk

    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data:
        return "binary", [], "NUL bytes in the input"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "not-utf8", [], str(exc)
    edits, findings = dialects.parse(text, "auto")
    if edits is None:
        msg = "; ".join(f"{f.code} line {f.line}: {f.message[:120]}" for f in findings)
        return "parse-error", [], msg
    files = []
    for fe in edits.files:
        hunks = [c for c in fe.changes if isinstance(c, Hunk)]
        if fe.binary:
            added = removed = None
        elif fe.content is not None:
            added, removed = _count_lines(fe.content), 0
        else:
            added = sum(1 for h in hunks for hl in h.lines if hl.tag == ADDED)
            removed = sum(1 for h in hunks for hl in h.lines if hl.tag == REMOVED)
        entry: dict[str, Any] = {
            "path": fe.path,
            "op": fe.op.value,
            "old_path": fe.old_path,
            "added": added,
            "removed": removed,
            "binary": fe.binary,
        }
        if fe.old_mode is not None or fe.new_mode is not None:
            entry["mode"] = f"{fe.old_mode or 0:o} -> {fe.new_mode or 0:o}"
        files.append(entry)
    return "ok", files, f"format {edits.format}, repairs {sorted(set(edits.repairs))}"


def _same_files(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> str:
    """'' when every expected file's stats match (order-free), else what differs."""
    by_path = {g["path"]: g for g in got}
    problems = []
    for w in want:
        g = by_path.get(w["path"])
        if g is None:
            problems.append(f"{w['path']!r} not parsed (got {sorted(by_path)})")
            continue
        for k in ("op", "old_path", "added", "removed"):
            if k not in w:
                continue
            if k == "old_path" and w["op"] not in ("rename", "copy"):
                continue  # traditional diffs name two files for a modify; git patches one
            if w.get("binary") and k in ("added", "removed"):
                continue
            if g.get(k) != w[k]:
                problems.append(f"{w['path']}: {k} {g.get(k)!r} != {w[k]!r}")
        if w.get("binary") and not g.get("binary"):
            problems.append(f"{w['path']}: not marked binary")
        if "mode" in w and "mode" in g and not g["mode"].endswith(w["mode"].split()[-1]):
            problems.append(f"{w['path']}: mode {g['mode']} != {w['mode']}")
        elif "mode" in w and "mode" not in g:
            problems.append(f"{w['path']}: mode change {w['mode']} not parsed")
    extra = set(by_path) - {w["path"] for w in want}
    if extra:
        problems.append(f"unexpected files {sorted(extra)}")
    return "; ".join(problems)


def _run_parse(case: Case, exp: Expect, work: Path) -> tuple[bool, str]:
    status, files, msg = parse_summary(case.patches[0])
    if exp.kind == "parse-ok":
        if status != "ok":
            return False, f"expected parse ok, got {status}: {msg}"
        missing = [r for r in exp.repairs if repr(r) not in msg]
        if missing:
            return False, f"parsed without the repair(s) {missing}: {msg}"
        return True, msg
    if exp.kind == "parse":
        missing = [r for r in exp.repairs if repr(r) not in msg]
        if status == "ok" and missing:
            return False, f"parsed without the repair(s) {missing}: {msg}"
        if exp.files is None:
            if status == "parse-error":
                return True, msg
            return False, f"expected a parse-error, got {status}: {files} ({msg})"
        if status != "ok":
            return False, f"expected parse ok, got {status}: {msg}"
        diff = _same_files(exp.files, files)
        return (not diff), (diff or msg)
    # parse-refuse: must never become an applicable edit.
    if status in ("parse-error", "binary"):
        return True, f"{status}: {msg}"
    if exp.files is not None and status == "ok":
        diff = _same_files(exp.files, files)
        if diff:
            return False, f"parse stats differ: {diff}"
    root = work / "repo"
    make_repo(root, {})
    before_tree, before_refs = _tree(root), refs(root)
    code, report, err = cli_apply(root, case.patches[0], None)
    codes = [f["code"] for f in (report or {}).get("findings", []) if f.get("severity") == "error"]
    if code != 1 or _tree(root) != before_tree or refs(root) != before_refs:
        return False, f"applied to an empty repository: exit {code}, {_short(report, err)}"
    if exp.codes and not set(codes) & set(exp.codes):
        return False, f"refused with {codes}, expected one of {list(exp.codes)}: {_short(report, err)}"
    return True, f"refused in an empty repository with {codes}"


def run_case(case: Case) -> Outcome:
    div = DIVERGENCES.get(case.key)
    exp = div.expect if div else case.expect
    if exp.kind == "skip":
        return Outcome(case, "skip", div.why if div else "")
    with tempfile.TemporaryDirectory(prefix="ag-conf-") as tmp:
        work = Path(tmp)
        try:
            if exp.kind in ("applied", "refused"):
                ok, detail = _run_apply(case, exp, work)
            else:
                ok, detail = _run_parse(case, exp, work)
        except Exception as exc:  # noqa: BLE001 - a crash in a case is a failure of that case, not of the run
            ok, detail = False, f"crashed: {type(exc).__name__}: {exc}"
    bug = KNOWN_BUGS.get(case.key)
    if not ok:
        return Outcome(case, "fail", f"[known bug: {bug}] {detail}" if bug else detail)
    if bug is not None:
        return Outcome(case, "pass", f"listed in KNOWN_BUGS but passes now: remove the entry ({detail})")
    remark = detail if detail.startswith(SUGGESTION_MARK) else ""
    if div is not None:
        return Outcome(case, "divergence", f"{div.why} ({detail})", remark)
    return Outcome(case, "pass", detail, remark)


def isolate_git(home: Path) -> None:
    """Shut the user's git configuration out of this process (before pygit2 loads)."""
    os.environ.update(GIT_ENV)
    os.environ["HOME"] = str(home)
    os.environ["XDG_CONFIG_HOME"] = str(home / ".config")
    for key in ("AGENT_GUARD_AGENT", "AGENT_GUARD_TURN", "AGENT_GUARD_POLICY", "GIT_DIR", "GIT_WORK_TREE"):
        os.environ.pop(key, None)


def table(outcomes: list[Outcome]) -> str:
    rows = ["corpus".ljust(30) + "cases  passed  failed  exp.div  skipped"]
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        kind = "parse" if o.case.expect.kind.startswith("parse") else "apply"
        groups.setdefault(f"{o.case.corpus} ({kind})", []).append(o)
    for name, os_ in groups.items():
        n = {s: sum(1 for o in os_ if o.status == s) for s in ("pass", "fail", "divergence", "skip")}
        rows.append(f"{name:<30}{len(os_):5}  {n['pass']:6}  {n['fail']:6}  {n['divergence']:7}  {n['skip']:7}")
    total = {s: sum(1 for o in outcomes if o.status == s) for s in ("pass", "fail", "divergence", "skip")}
    rows.append(
        f"{'total':<30}{len(outcomes):5}  {total['pass']:6}  {total['fail']:6}  {total['divergence']:7}  {total['skip']:7}"
    )
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", choices=CORPUS_NAMES)
    ap.add_argument("--corpora", type=Path, default=CORPORA)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case, not only failures")
    args = ap.parse_args()
    if not args.corpora.is_dir():
        print(f"no corpora at {args.corpora}: nothing to run")
        return 0
    home = Path(tempfile.mkdtemp(prefix="ag-conf-home-"))
    isolate_git(home)
    sys.path.insert(0, str(ROOT))
    try:
        cases = load_cases(args.corpora, tuple(args.corpus or CORPUS_NAMES))
        outcomes = [run_case(c) for c in cases]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(table(outcomes))
    for label, status in (("FAILURES", "fail"), ("EXPECTED DIVERGENCES", "divergence"), ("SKIPPED", "skip")):
        sel = [o for o in outcomes if o.status == status]
        if sel:
            print(f"\n{label} ({len(sel)}):")
            for o in sel:
                print(f"  {o.case.corpus}/{o.case.id}: {o.detail}")
    remarks = [o for o in outcomes if o.remark]
    if remarks:
        print(f"\nPASSED, BUT THE FINDING DIFFERS FROM THE CORPUS' SUGGESTION ({len(remarks)}):")
        for o in remarks:
            print(f"  {o.case.corpus}/{o.case.id}: {o.remark[len(SUGGESTION_MARK) + 1 :]}")
    if args.verbose:
        print("\nPASSED:")
        for o in outcomes:
            if o.status == "pass":
                print(f"  {o.case.corpus}/{o.case.id}: {o.detail}")
    return 1 if any(o.status == "fail" for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
