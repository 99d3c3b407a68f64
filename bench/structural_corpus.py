"""Structural rewrites against ast-grep's own command line, on real source files (run by hand).

The corpus is built at run time from source files on this machine, never committed: the
Python standard library and the interpreter's site-packages (.py), npm's packages
(/usr/lib/node_modules and the like: .js/.mjs/.cjs, .ts), Go's and Rust's sources where a
toolchain ships them, ../shared/corpora, and any folder given with --source or git
repository given with --git-source (its HEAD, exported).  Files that are not UTF-8 text,
minified (a line over 1,000 characters), over 300 KB, CRLF (where the engine writes a
template's line breaks as the file's CRLF, ast-grep as LF: pinned by
tests/structural/test_expansion.py) or hidden (ast-grep's walk skips them) are left out,
as are copies; then up to --files per language are drawn (seeded).

For each rule of the language (``RULES``: codemods of the kinds agents are asked for, with
lists of nodes, several lines, nested matches, deletions):

- ``ast-grep run --pattern P [--selector K] --rewrite T --lang L -U`` on a fresh copy;
- the engine's own search-and-fill (``structural.matches.rewrite``) on every file: the
  matches, and the files where a match holds text its pattern leaves out (the engine
  refuses those: the rewrite would drop that text; counted as `partial`);
- ``Guard.apply(call, check=True)`` on a git repository of the same files (every file
  tracked, checks that would change bytes off: whitespace, placeholder, syntax, budget),
  over the language's folder, or, when some files are partial, over the others by name.

Agreement is identical bytes per file: the engine's ``--check`` result (the bytes it would
write) against ast-grep's file, for every file the engine takes; and the search-and-fill
alone against ast-grep's file for every file (partial ones included).  Cost per 1,000
files searched: wall and CPU time of the engine's whole ``--check`` (listing, reading,
matching, filling, diffs, checks), of the search-and-fill alone, and of the command line
(all its threads; its CPU from ``getrusage``).  --apply also times one real apply
(write and record the turn) and its rollback per language.

    python bench/structural_corpus.py [--files 1000] [--seed 1] [--source DIR]... [--git-source GITDIR]...
                                      [--lang python,javascript] [--show 3] [--apply] [--keep]
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Iterator, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # noqa: E402  (bench/, this script's folder)

from guard.pipeline.engine import Guard  # noqa: E402
from guard.structural import languages, matches, template  # noqa: E402
from guard.text.textfile import NotText, decode  # noqa: E402
from guard.turns.rollback import rollback  # noqa: E402


class Rule(NamedTuple):
    pattern: str
    to: str
    selector: str | None = None


RULES: dict[str, list[Rule]] = {
    "python": [
        Rule("print($$$ARGS)", "logger.info($$$ARGS)"),
        Rule("dict()", "{}"),
        Rule("self.assertEqual($A, $B)", "assert $A == $B"),
        Rule("isinstance($X, $T)", "is_a(\n    $X,\n    $T,\n)"),
        Rule("def $F($$$P):\n    $$$BODY", "@traced\ndef $F($$$P):\n    $$$BODY"),
        Rule("with open($F) as $H:\n    $$$B", 'with open($F, encoding="utf-8") as $H:\n    $$$B'),
        Rule("raise $E($$$A)", "raise $E($$$A) from None"),
        Rule("len($X) == 0", "not $X"),
    ],
    "javascript": [
        Rule("console.log($$$A)", "logger.debug($$$A)"),
        Rule("require($M)", "importModule($M)"),
        Rule("$A && $A()", "$A?.()"),
        Rule("typeof $X === 'undefined'", "$X === undefined"),
        Rule("function $F($$$P) { $$$B }", "const $F = function ($$$P) {\n  $$$B\n}"),
        Rule("new Promise($$$A)", "Promise.make($$$A)"),
        Rule("var $A = $B;", "let $A = $B;"),
        Rule("$O.hasOwnProperty($K)", "Object.hasOwn($O, $K)"),
    ],
    "typescript": [
        Rule("console.log($$$A)", "logger.debug($$$A)"),
        Rule("$A as any", "$A as unknown"),
        Rule("JSON.stringify($A, null, 2)", "formatJson($A)"),
        Rule("await Promise.all($A)", "await Promise.allSettled($A)"),
        Rule("expect($A).toBe($B)", "expect($A).toStrictEqual($B)"),
        Rule("if ($C) { $$$B }", "if ($C) {\n  // checked\n  $$$B\n}"),
        Rule("export function $F($$$P) { $$$B }", "export const $F = ($$$P) => {\n  $$$B\n};"),
    ],
    "go": [
        Rule("func t() { errors.New($M) }", "fmt.Errorf($M)", "call_expression"),
        Rule("func t() { fmt.Sprintf($$$A) }", "format($$$A)", "call_expression"),
        Rule("func t() { if err != nil { return $E } }", "if err != nil {\n\treturn wrap($E)\n}", "if_statement"),
    ],
    "rust": [
        Rule("$X.unwrap()", '$X.expect("checked")'),
        Rule("Vec::new()", "Vec::with_capacity(0)"),
        Rule("$A.clone()", "Clone::clone(&$A)"),
        Rule("println!($$$A)", "eprintln!($$$A)"),
        Rule("Some($X)", "Option::Some($X)"),
        Rule("impl $T for $S { $$$B }", "impl $T for $S {\n    // checked\n    $$$B\n}"),
    ],
}

POLICY = "checks: {whitespace: off, placeholder: off, syntax: off, budget: off, conflict-marker: off, no-op: off}\n"
SKIP_DIRS = {"__pycache__", ".git", "node_modules/.cache", "test-data"}
HOME = Path.home()


# --------------------------------------------------------------------------- the corpus


def _walk(top: Path) -> Iterator[Path]:
    if not top.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            yield Path(dirpath) / f


def _roots(extra: list[Path]) -> list[Path]:
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])]
    roots += [
        Path(p)
        for p in (
            "/usr/lib/node_modules",
            "/usr/local/lib/node_modules",
            "/usr/share/nodejs",
            "/usr/lib/go/src",
            "/usr/local/go/src",
            "/usr/share/doc",
        )
    ]
    roots += sorted(Path("/usr/lib").glob("go-*/src"))
    roots += sorted(HOME.glob(".rustup/toolchains/*/lib/rustlib/src/rust/library"))
    roots += [HOME / ".cargo" / "registry" / "src", HOME / "go" / "pkg" / "mod"]
    go = shutil.which("go")
    if go:
        found = subprocess.run([go, "env", "GOROOT"], capture_output=True, text=True, timeout=60, check=False)
        if found.returncode == 0 and found.stdout.strip():
            roots.append(Path(found.stdout.strip()) / "src")
    roots.append(Path(__file__).resolve().parents[2] / "shared" / "corpora")
    return roots + extra


def _exported(gitdirs: list[str], into: Path) -> list[Path]:
    """Each git repository's HEAD, its source files written out under `into` (blobs the
    repository lacks, as a partial clone or mirror may, are left out)."""
    env = {**os.environ, **GIT_ENV}
    out = []
    for n, gitdir in enumerate(gitdirs):
        dest = into / f"git-{n}"
        listed = subprocess.run(
            ["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", "HEAD"], capture_output=True, timeout=600, env=env, check=True
        ).stdout.split(b"\0")
        wanted: list[tuple[str, str]] = []
        for item in listed:
            if not item:
                continue
            meta, _tab, name = item.partition(b"\t")
            mode, kind, oid = meta.split()
            path = name.decode("utf-8", "replace")
            if kind == b"blob" and mode == b"100644" and languages.of_path(path) is not None:
                wanted.append((oid.decode(), path))
        batch = subprocess.run(
            ["git", "--git-dir", gitdir, "cat-file", "--batch"],
            capture_output=True,
            timeout=1800,
            input="".join(f"{oid}\n" for oid, _p in wanted).encode(),
            env=env,
            check=True,
        ).stdout
        pos = 0
        for _oid, path in wanted:
            end = batch.index(b"\n", pos)
            header = batch[pos:end].split()
            pos = end + 1
            if header[-1] == b"missing":
                continue
            size = int(header[2])
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(batch[pos : pos + size])
            pos += size + 1
        out.append(dest)
    return out


def _usable(path: Path, seen: set[str]) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 300_000:
            return None
        data = path.read_bytes()
        text = decode(data)
    except (OSError, NotText):
        return None
    if not text.lines or "\r\n" in text.eols or text.bom or max(map(len, text.lines)) > 1000:
        return None
    digest = hashlib.sha1(data).hexdigest()
    if digest in seen:
        return None
    seen.add(digest)
    return data.decode("utf-8")


def corpus(roots: list[Path], wanted: list[str], per_language: int, seed: int) -> dict[str, dict[str, str]]:
    """Per language: file name in the corpus -> text (at most `per_language`, drawn with `seed`)."""
    found: dict[str, list[Path]] = {lang: [] for lang in wanted}
    for root in dict.fromkeys(roots):
        for path in _walk(root):
            if path.name.startswith(".") or path.name.endswith((".min.js", ".min.mjs")):
                continue
            lang = languages.of_path(path.name)
            if lang is not None and lang.name in found:
                found[lang.name].append(path)
    rng = random.Random(seed)
    out: dict[str, dict[str, str]] = {}
    for lang, paths in found.items():
        rng.shuffle(paths)
        seen: set[str] = set()
        files: dict[str, str] = {}
        for path in paths:
            if len(files) >= per_language:
                break
            text = _usable(path, seen)
            if text is not None:
                files[f"{lang}/{len(files):05d}_{path.name}"] = text
        if files:
            out[lang] = files
    return out


# --------------------------------------------------------------------------- one rule


class Outcome(NamedTuple):
    files: int
    matched: int  # files with a match
    matches: int
    partial: int  # files the engine refuses: a match holds text its pattern leaves out
    agree: int  # files the engine takes whose bytes equal ast-grep's
    compared: int
    fill_agree: int  # files (all) where the search-and-fill alone equals ast-grep's
    engine: tuple[float, float]  # wall, CPU seconds of Guard.apply(check=True)
    fill: tuple[float, float]  # wall, CPU of the search-and-fill alone
    cli: tuple[float, float]  # wall, CPU (children) of ast-grep
    refusal: str  # the engine's finding when it refused the files it was given
    shown: list[str]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _cli(tool: str, lang: str, rule: Rule, folder: Path) -> tuple[float, float]:
    args = [tool, "run", "--pattern", rule.pattern, "--rewrite", rule.to, "--lang", lang, "-U", str(folder)]
    if rule.selector:
        args[4:4] = ["--selector", rule.selector]
    cpu, wall = _children_cpu(), time.perf_counter()
    proc = subprocess.run(args, capture_output=True, timeout=1800, check=False)
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ast-grep failed: {proc.stderr.decode(errors='replace')[:500]}")
    return wall, cpu


def run_rule(
    tool: str, lang: str, rule: Rule, files: dict[str, str], pristine: Path, work: Path, repo: Path, show: int
) -> Outcome:
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(pristine / lang, work / lang)
    cli = _cli(tool, lang, rule, work / lang)
    theirs = {name: (work / name).read_bytes() for name in files}

    language = languages.named(lang)
    assert language is not None
    slots = template.slots(rule.to)
    filled: dict[str, str] = {}
    partial: set[str] = set()
    matched = count = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for name, text in files.items():
        done = matches.rewrite(text, language, rule.pattern, rule.selector, rule.to, slots)
        filled[name] = done.text
        if done.matches:
            matched += 1
            count += len(done.matches)
        if done.partial:
            partial.add(name)
    fill = (time.perf_counter() - wall, time.process_time() - cpu)
    fill_agree = sum(filled[name].encode("utf-8") == theirs[name] for name in files)

    taken = [name for name in files if name not in partial]
    paths = [f"{lang}/"] if not partial else taken  # by name: every file but the partial ones
    call = {"rewrite": [{"pattern": rule.pattern, "to": rule.to, "selector": rule.selector}], "paths": paths, "language": lang}
    refusal = ""
    written: dict[str, bytes] = {}
    engine = (0.0, 0.0)
    if paths:
        cpu, wall = time.process_time(), time.perf_counter()
        report = Guard(repo).apply(json.dumps(call), check=True)
        engine = (time.perf_counter() - wall, time.process_time() - cpu)
        if report.status == "refused":
            first = report.findings[0]
            refusal = f"{first.code}: {first.message[:160]}"
        written = {c.path: c.after or b"" for c in report.changes}
    shown: list[str] = []
    agree = 0
    for name in taken:
        ours = written.get(name, files[name].encode("utf-8"))
        if ours == theirs[name]:
            agree += 1
        elif len(shown) < show:
            diff = difflib.unified_diff(
                theirs[name].decode(errors="replace").splitlines(True),
                ours.decode(errors="replace").splitlines(True),
                "ast-grep",
                "agent-guard",
                n=1,
            )
            shown.append(f"--- {name}\n" + "".join(list(diff)[:30]))
    return Outcome(len(files), matched, count, len(partial), agree, len(taken), fill_agree, engine, fill, cli, refusal, shown)


# --------------------------------------------------------------------------- the run


def _repository(root: Path, corpus_files: dict[str, dict[str, str]]) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, timeout=60, env=env)
    (root / ".agent-guard.yaml").write_text(POLICY)
    for files in corpus_files.values():
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, timeout=600, env=env)
    subprocess.run(["git", "commit", "-qm", "corpus"], cwd=root, check=True, timeout=600, env=env)


def _per_thousand(seconds: float, files: int) -> str:
    return f"{seconds * 1000 / files * 1000:,.0f}" if files else "-"


def _timed_apply(repo: Path, lang: str, rule: Rule) -> str:
    call = {
        "rewrite": [{"pattern": rule.pattern, "to": rule.to, "selector": rule.selector}],
        "paths": [f"{lang}/"],
        "language": lang,
    }
    g = Guard(repo)
    wall = time.perf_counter()
    report = g.apply(json.dumps(call))
    applied = time.perf_counter() - wall
    if report.status != "applied":
        return f"  apply {lang} {rule.pattern!r}: {report.status} ({report.findings[0].message[:100] if report.findings else ''})"
    wall = time.perf_counter()
    undone = rollback(g, None)
    rolled = time.perf_counter() - wall
    return (
        f"  apply {lang} {rule.pattern!r}: {len(report.changes)} files written and recorded in {applied * 1000:,.0f} ms; "
        f"rollback {undone.status} in {rolled * 1000:,.0f} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1000, help="at most this many files per language")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", type=Path, action="append", default=[], help="another folder of sources")
    ap.add_argument("--git-source", action="append", default=[], help="a git repository whose HEAD to add")
    ap.add_argument("--lang", default=",".join(RULES), help="languages, comma-separated")
    ap.add_argument("--show", type=int, default=2, help="disagreements to print per rule")
    ap.add_argument("--apply", action="store_true", help="also time one real apply and rollback per language")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()

    tool = shutil.which("ast-grep", path=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    if tool is None:
        print("ast-grep (pip install ast-grep-cli) is not installed: nothing to compare with", file=sys.stderr)
        return 2
    version = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60, check=False).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="agent-guard-structural-"))
    try:
        roots = _roots(args.source) + _exported(args.git_source, scratch / "sources")
        wanted = [x for x in args.lang.split(",") if x in RULES]
        started = time.perf_counter()
        files = corpus(roots, wanted, args.files, args.seed)
        pristine, repo = scratch / "pristine", scratch / "repo"
        for texts in files.values():
            for name, text in texts.items():
                (pristine / name).parent.mkdir(parents=True, exist_ok=True)
                (pristine / name).write_text(text, encoding="utf-8")
        _repository(repo, files)
        print(
            f"{version}; corpus built in {time.perf_counter() - started:.1f} s: "
            + ", ".join(f"{lang} {len(t):,} files ({sum(len(x) for x in t.values()) / 1e6:.1f} MB)" for lang, t in files.items())
        )
        for lang in wanted:
            if lang not in files:
                print(f"{lang}: no source files on this machine")
        print()
        head = (
            f"{'language':<11} {'rule':<38} {'files':>6} {'matched':>7} {'matches':>7} {'partial':>7} "
            f"{'agree':>11} {'fill agree':>11} {'engine ms/1k':>13} {'(cpu)':>7} {'fill ms/1k':>10} {'(cpu)':>7} "
            f"{'ast-grep ms/1k':>14} {'(cpu)':>7}"
        )
        print(head)
        totals = [0, 0, 0, 0]
        notes: list[str] = []
        for lang, texts in files.items():
            for rule in RULES[lang]:
                o = run_rule(tool, lang, rule, texts, pristine, scratch / "work", repo, args.show)
                totals = [totals[0] + o.agree, totals[1] + o.compared, totals[2] + o.fill_agree, totals[3] + o.files]
                label = rule.pattern.replace("\n", "\\n")[:38]
                print(
                    f"{lang:<11} {label:<38} {o.files:>6,} {o.matched:>7,} {o.matches:>7,} {o.partial:>7,} "
                    f"{o.agree:>5,}/{o.compared:<5,} {o.fill_agree:>5,}/{o.files:<5,} "
                    f"{_per_thousand(o.engine[0], o.files):>13} {_per_thousand(o.engine[1], o.files):>7} "
                    f"{_per_thousand(o.fill[0], o.files):>10} {_per_thousand(o.fill[1], o.files):>7} "
                    f"{_per_thousand(o.cli[0], o.files):>14} "
                    f"{_per_thousand(o.cli[1], o.files):>7}",
                    flush=True,
                )
                if o.refusal:
                    notes.append(f"  {lang} {label}: the engine refused: {o.refusal}")
                for text in o.shown:
                    notes.append(text)
            if args.apply and RULES[lang]:
                notes.append(_timed_apply(repo, lang, RULES[lang][0]))
        print(
            f"\nengine --check agrees with ast-grep on {totals[0]:,} of {totals[1]:,} files it takes; "
            f"the search-and-fill alone on {totals[2]:,} of {totals[3]:,} (partial ones included)"
        )
        for note in notes:
            print(note)
    finally:
        if args.keep:
            print(f"scratch kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
