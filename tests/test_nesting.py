"""Text nested deeper than a parser follows ends in a finding, never in exit 3.

500 nested `[` in a `.toml` edit crashed the syntax check (`RecursionError` in tomllib,
exit 3).  Every parser agent-guard runs on text it did not write is swept here with `[`,
`{` and `(` nested 500 and 20,000 deep (under the default 200 KB edit budget): the
syntax check's TOML, JSON, YAML, Python and tree-sitter grammars, the policy loader
(PyYAML's pure-Python composer), `pyproject.toml` (read for the Python target), and the
Claude Code hook's payload.  Each ends as a `syntax` finding, a refusal, a usage error or a
clean apply where the text is valid and the parser can follow it; nothing crashes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env

DEPTHS = (500, 20_000)

# file, what is there before (parses), and the deep text for a depth: brackets of each kind.
TEXTS: dict[str, tuple[str, dict[str, str]]] = {
    "conf.toml": ("a = 1\n", {"[": "a = {o}1{c}\n", "{": "a = {o}1{c}\n"}),
    "data.json": ('{"a": 1}\n', {"[": "{o}1{c}\n", "{": "{o}1{c}\n"}),
    "conf.yaml": ("a: 1\n", {"[": "a: {o}1{c}\n", "{": "a: {o}1{c}\n"}),
    "mod.py": (
        "X = 1\n",
        {
            "[": "X = {o}1{c}\n",
            "{": "X = {o}1{c}\n",
            "(": "X = {o}1{c}\n",
            "-": "X = {o}1\n",
            "not": "X = {o}1\n",
            ".": "X = a{o}\n",
            "()": "X = a{o}\n",
        },
    ),
    "app.js": ("const x = 1;\n", {"[": "const x = {o}1{c};\n", "{": "const x = {o}1{c};\n", "(": "const x = {o}1{c};\n"}),
    "main.c": ("int x = 1;\n", {"(": "int x = {o}1{c};\n", "{": "int x[] = {o}1{c};\n"}),
    "lib.rs": ("const X: i32 = 1;\n", {"(": "const X: i32 = {o}1{c};\n", "[": "const X: [i32; 1] = {o}1{c};\n"}),
}
OPEN = {"[": ("[", "]"), "{": ("{", "}"), "(": ("(", ")"), "-": ("-", ""), "not": ("not ", ""), ".": (".b", ""), "()": ("()", "")}
# Languages the standard parsers read, which give up on depth: they must say so as a `syntax` finding.
BOUNDED = {"conf.toml", "data.json", "conf.yaml", "mod.py"}

CASES = [(name, kind, depth) for name, (_old, kinds) in TEXTS.items() for kind in kinds for depth in DEPTHS]


def deep(name: str, kind: str, depth: int) -> str:
    o, c = OPEN[kind]
    if kind == "{" and name == "conf.toml":
        o, c = "{b = ", "}"
    elif kind == "{" and name in ("data.json", "conf.yaml"):
        o, c = ('{"b": ', "}") if name == "data.json" else ("{b: ", "}")
    elif kind == "{" and name == "mod.py":
        o, c = "{", "}"
    return TEXTS[name][1][kind].replace("{o}", o * depth).replace("{c}", c * depth)


@pytest.fixture
def syntax_errors(tmp_path: Path) -> str:
    """A policy (outside the tree) under which a `syntax` finding refuses."""
    path = tmp_path / "syntax-errors.yaml"
    path.write_text("extends: default\nchecks: {syntax: error}\n")
    return str(path)


@pytest.mark.parametrize("name,kind,depth", CASES, ids=[f"{n}-{k}-{d}" for n, k, d in CASES])
def test_deep_text_ends_in_a_finding(
    repo: Repo,
    cli,
    syntax_errors: str,
    name: str,
    kind: str,  # type: ignore[no-untyped-def]
    depth: int,
) -> None:
    repo.commit({name: TEXTS[name][0]})
    before = repo.snapshot()
    text = deep(name, kind, depth)
    r = cli("apply", "--json", "--policy", syntax_errors, input=json.dumps({"file_path": name, "content": text}))
    assert r.code in (0, 1) and "internal" not in r.stdout, r
    report = r.json()
    codes = [f["code"] for f in report["findings"]]
    if r.code == 1:
        assert codes == ["syntax"], r
        assert repo.snapshot() == before
    if name in BOUNDED and depth == max(DEPTHS):
        assert r.code == 1 and codes == ["syntax"], r
        message = report["findings"][0]["message"]
        assert "nest" in message or "parenthes" in message or "indentation" in message, message


def test_toml_500_nested_brackets_is_a_syntax_finding(repo: Repo, cli, syntax_errors: str) -> None:  # type: ignore[no-untyped-def]
    """The issue's case: a .toml edit of 500 nested `[`, located at the brackets."""
    repo.commit({"pyproject.toml": "[tool.x]\na = 1\n"})
    before = repo.snapshot()
    edit = "--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1,2 +1,2 @@\n [tool.x]\n-a = 1\n+a = " + "[" * 500 + "]" * 500 + "\n"
    r = cli("apply", "--json", "--policy", syntax_errors, input=edit)
    assert r.code == 1, r
    [f] = r.json()["findings"]
    assert f["code"] == "syntax" and f["line"] == 2 and "nested too deeply" in f["message"], f
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    "language,text",
    [
        ("yaml", "a: " + "[" * 600 + "]" * 600 + "\n"),
        ("yaml", "a: " + "{b: " * 600 + "1" + "}" * 600 + "\n"),
        ("yaml", "".join("  " * i + "k:\n" for i in range(600)) + "  " * 600 + "v\n"),
    ],
)
def test_pure_python_yaml_composer_is_bounded(monkeypatch: pytest.MonkeyPatch, language: str, text: str) -> None:
    """Without libyaml, PyYAML composes one recursion level per nesting level."""
    import yaml

    from guard.syntax import languages

    monkeypatch.setattr(languages, "_yaml_loader", lambda: yaml.SafeLoader)
    problem = languages.problem(language, text.encode())
    assert problem is not None and "nested too deeply" in problem.message, problem


@pytest.mark.parametrize(
    "policy",
    [
        "checks: " + "[" * 500 + "]" * 500 + "\n",
        "checks: " + "{a: " * 500 + "1" + "}" * 500 + "\n",
        "".join("  " * i + "k:\n" for i in range(2000)),
        "budget: {per_edit: {files: " + "9" * 5000 + "}}\n",
        # An alias bomb: ten aliases of ten aliases ... (10**9 values once spelled out).
        "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)),
    ],
    ids=["nested-lists", "nested-maps", "nested-blocks", "5000-digit-int", "alias-bomb"],
)
def test_a_hostile_policy_is_a_usage_error(repo: Repo, policy: str) -> None:
    repo.commit({"a.txt": "one\n"})
    (repo.root / ".agent-guard.yaml").write_text(policy)
    before = repo.snapshot()
    edit = json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "two"})
    r = subprocess.run(
        [sys.executable, "-m", "guard", "apply", "--json"],
        input=edit.encode(),
        cwd=repo.root,
        capture_output=True,
        env=checkout_env(),
        timeout=60,
        check=False,
    )
    assert r.returncode == 2, r
    assert json.loads(r.stdout)["findings"][0]["code"] == "usage"
    assert b"policy" in r.stderr and b"internal" not in r.stderr, r.stderr
    assert repo.snapshot() == before


def test_a_deep_pyproject_leaves_python_unnarrowed(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(
        {"pyproject.toml": "[project]\nrequires-python = '>=3.8'\nx = " + "[" * 500 + "]" * 500 + "\n", "mod.py": "X = 1\n"}
    )
    r = cli(
        "apply", "--json", "--check", input=json.dumps({"file_path": "mod.py", "old_string": "X = 1", "new_string": "X = (1"})
    )
    assert r.code == 0 and [f["code"] for f in r.json()["findings"]] == ["syntax"], r


@pytest.mark.parametrize(
    "payload",
    [
        '{"tool_name": "Edit", "tool_input": ' + "[" * 20_000 + "]" * 20_000 + "}",
        '{"tool_name": "Edit", "tool_input": {"file_path": ' + '{"a": ' * 20_000 + "1" + "}" * 20_000 + "}}",
    ],
    ids=["nested-lists", "nested-objects"],
)
def test_a_deep_hook_payload_denies(repo: Repo, payload: str) -> None:
    repo.commit({"a.txt": "one\n"})
    before = repo.snapshot()
    r = subprocess.run(
        [sys.executable, "-m", "guard", "hook", "claude-code"],
        input=payload.encode(),
        cwd=repo.root,
        capture_output=True,
        env=checkout_env(),
        timeout=60,
        check=False,
    )
    assert r.returncode == 2 and r.stderr, r
    assert repo.snapshot() == before


def test_deepest_points_at_the_brackets() -> None:
    from guard.syntax.nesting import NESTING, deepest

    assert deepest("a = 1\nb = " + "[" * 500 + "]" * 500) == (2, 4 + NESTING)
    assert deepest("x = ((1))\n") == (1, 6)
    assert deepest("") == (1, 1)
