"""Structural rewrites held to ast-grep's own command line, byte for byte, on a generated corpus.

Each rule is applied by `ast-grep run --pattern P --rewrite T --lang L -U` to a copy of the
corpus, and through `Guard.apply` (with `--check`: the bytes it would write) to a repository
of the same files; every file must come out the same.  The corpus is generated here (seeded):
nested and repeated calls, arguments over several lines at several depths, tabs, non-ASCII
text, a line longer than the 512 bytes ast-grep looks back through for indentation.
`bench/structural_corpus.py` does the same on real source files.  Skipped without `ast-grep`.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, command_env

from guard.pipeline.engine import Guard

pytest.importorskip("ast_grep_py", reason="structural rewrites need the `structural` extra")
AST_GREP = shutil.which("ast-grep", path=command_env()["PATH"])
pytestmark = pytest.mark.skipif(AST_GREP is None, reason="the ast-grep command line (ast-grep-cli) is not installed")

POLICY = "checks: {whitespace: off, placeholder: off, syntax: off, budget: off}\n"

# (language, glob, pattern, selector, template)
RULES = [
    ("python", "*.py", "print($$$ARGS)", None, "logger.info($$$ARGS)"),
    ("python", "*.py", "isinstance($X, $T)", None, "is_a(\n    $X,\n    $T,\n)"),
    ("python", "*.py", "def $F($$$P):\n    $$$BODY", None, 'def $F($$$P):\n    """Doc."""\n    $$$BODY'),
    ("javascript", "*.js", "oldApi($$$ARGS)", None, "newApi($$$ARGS)"),
    ("javascript", "*.js", "$A && $A()", None, "$A?.()"),
    ("javascript", "*.js", "console.log($$$A)", None, ""),
    ("typescript", "*.ts", "assertEqual($A, $B)", None, "assertEqual(\n  $B,\n  $A,\n)"),
    # In Go `errors.New(x)` alone parses as a type conversion: the call is taken from a context.
    ("go", "*.go", "func t() { errors.New($M) }", "call_expression", "fmt.Errorf(\n\t$M,\n)"),
]

WORDS = ["alpha", "beta", "gamma", "delta", "ünïcode", "名前", "x", "value", "items"]


def _arg(rng: random.Random, depth: int, indent: str) -> str:
    kind = rng.randrange(6)
    if kind == 0 and depth < 2:
        return f"oldApi({_args(rng, depth + 1, indent + '  ')})"
    if kind == 1:
        return repr(rng.choice(WORDS))
    if kind == 2:
        return str(rng.randrange(1000))
    if kind == 3 and depth < 2:
        inner = ",\n".join(indent + "    " + _arg(rng, depth + 1, indent + "    ") for _ in range(rng.randrange(1, 3)))
        return f"[\n{inner},\n{indent}  ]"
    return rng.choice(WORDS[:4])


def _args(rng: random.Random, depth: int, indent: str) -> str:
    items = [_arg(rng, depth, indent) for _ in range(rng.randrange(0, 4))]
    if items and rng.random() < 0.4:
        return "\n" + ",\n".join(indent + "    " + a for a in items) + ",\n" + indent
    return ", ".join(items)


def _python(rng: random.Random) -> str:
    out = ["import logging\n"]
    for f in range(rng.randrange(2, 5)):
        params = ", ".join(rng.sample(WORDS[:4], rng.randrange(0, 3)))
        out.append(f"\ndef fn{f}({params}):\n")
        for _ in range(rng.randrange(1, 5)):
            pad = "    " * rng.randrange(1, 3)
            if len(pad) > 4:
                out.append(f"    if {rng.choice(WORDS[:4])}:\n")
            out.append(
                pad
                + rng.choice(
                    [
                        f"print({_args(rng, 0, pad)})\n",
                        f"ok = isinstance({rng.choice(WORDS[:4])}, {rng.choice(['int', 'str', '(int, str)'])})\n",
                        f"x = {rng.choice(WORDS[:4])}  # print(x) in a comment\n",
                        f"s = {'z' * 600!r}; print(s)\n",  # a line past ast-grep's 512-byte look-back
                        f"s = {'é' * 300!r}; ok = isinstance(s, str)\n",  # ... in bytes, not characters
                    ]
                )
            )
        out.append("    return None\n")
    return "".join(out)


def _javascript(rng: random.Random) -> str:
    out = []
    for f in range(rng.randrange(2, 5)):
        out.append(f"function fn{f}(cb) {{\n")
        for _ in range(rng.randrange(1, 5)):
            pad = "  " * rng.randrange(1, 3)
            out.append(
                pad
                + rng.choice(
                    [
                        f"const r = oldApi({_args(rng, 0, pad)});\n",
                        "cb && cb();\n",
                        f"console.log({_args(rng, 0, pad)});\n",
                        f'const s = "{"é" * 300}"; oldApi(s);\n',
                    ]
                )
            )
        out.append("}\n")
    return "".join(out)


def _typescript(rng: random.Random) -> str:
    out = ["import { assertEqual } from './assert';\n"]
    for t in range(rng.randrange(2, 4)):
        out.append(f"\ndescribe('t{t}', () => {{\n")
        for _ in range(rng.randrange(1, 4)):
            out.append(f"  assertEqual({_arg(rng, 1, '  ')}, {_arg(rng, 1, '  ')});\n")
        if rng.random() < 0.5:
            out.append(f'  const s = "{"ü" * rng.randrange(200, 262)}"; assertEqual(s, 1);\n')
        out.append("});\n")
    return "".join(out)


def _go(rng: random.Random) -> str:
    out = ['package main\n\nimport (\n\t"errors"\n\t"fmt"\n)\n']
    for f in range(rng.randrange(2, 4)):
        out.append(f"\nfunc f{f}() error {{\n")
        for _ in range(rng.randrange(1, 4)):
            out.append(f'\tif err := g(); err != nil {{\n\t\treturn errors.New("{rng.choice(WORDS)}")\n\t}}\n')
        out.append('\t_ = fmt.Sprint("x")\n\treturn nil\n}\n')
    return "".join(out)


def _corpus(seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    files: dict[str, str] = {}
    for i in range(12):
        files[f"py/m{i}.py"] = _python(rng)
        files[f"js/m{i}.js"] = _javascript(rng)
        files[f"ts/m{i}.ts"] = _typescript(rng)
        files[f"go/m{i}.go"] = _go(rng)
    return files


@pytest.mark.parametrize(("lang", "glob", "pattern", "selector", "to"), RULES, ids=[f"{r[0]}:{r[2][:20]}" for r in RULES])
def test_the_engine_writes_what_ast_grep_writes(
    repo: Repo, tmp_path: Path, lang: str, glob: str, pattern: str, selector: str | None, to: str
) -> None:
    files = _corpus(7)
    repo.commit({".agent-guard.yaml": POLICY, **files})
    copy = tmp_path / "cli"
    for name, text in files.items():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_text(text, encoding="utf-8")
    assert AST_GREP is not None
    chosen = ["--selector", selector] if selector else []
    proc = subprocess.run(
        [AST_GREP, "run", "--pattern", pattern, *chosen, "--rewrite", to, "--lang", lang, "-U", str(copy)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    call = {"rewrite": [{"pattern": pattern, "to": to, "selector": selector}], "paths": [glob], "language": lang}
    report = Guard(repo.root).apply(json.dumps(call), check=True)
    assert report.status == "checked", report
    written = {c.path: c.after for c in report.changes}
    assert written, "the rule changes no file of the corpus"
    for name in files:
        theirs = (copy / name).read_bytes()
        ours = written.get(name, files[name].encode("utf-8"))
        assert ours == theirs, f"{name}: the engine and ast-grep disagree"
