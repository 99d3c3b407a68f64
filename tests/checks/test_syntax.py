"""The `syntax` check: refuse an edit that leaves a file unparsable where it parsed before.

For every supported language: an edit that breaks the parse (refused, with the
parser's line and the nearest edited line), one that keeps it (applied), and one
to a file that was already broken (applied: it is not held to a parse it never had).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import checkout_env

from guard.checks import syntax
from guard.model import Op
from guard.syntax import languages
from guard.tree.diffs import make_change

# language: (path, before, an edit that keeps it parsing, an edit that breaks it, a broken file)
LANGUAGES: dict[str, tuple[str, str, str, str, str]] = {
    "python": (
        "app.py",
        "def f(a):\n    return a + 1\n",
        "def f(a):\n    return a + 2\n",
        "def f(a):\n    return (a + 1\n",
        "def f(a)\n    return a + 1\n",
    ),
    "json": ("data.json", '{"a": 1, "b": [1, 2]}\n', '{"a": 2, "b": [1, 2]}\n', '{"a": 2, "b": [1, 2]\n', '{"a": 1,, "b": 2}\n'),
    "yaml": ("ci.yml", "a: 1\nb:\n  - x\n  - y\n", "a: 2\nb:\n  - x\n  - y\n", "a: 2\nb:\n  - x\n - y\n", "a: [1\nb: 2\n"),
    "toml": (
        "conf.toml",
        'name = "x"\n[tool]\nv = 1\n',
        'name = "y"\n[tool]\nv = 1\n',
        'name = "y\n[tool]\nv = 1\n',
        "name = \n",
    ),
    "javascript": (
        "app.js",
        "function f(a) {\n  return a + 1;\n}\n",
        "function f(a) {\n  return a + 2;\n}\n",
        "function f(a) {\n  return a + ;\n}\n",
        "function f(a {\n  return a;\n}\n",
    ),
    "typescript": (
        "app.ts",
        "export function f(a: number): number {\n  return a + 1;\n}\n",
        "export function f(a: number): number {\n  return a * 2;\n}\n",
        "export function f(a: number): number {\n  return a +;\n}\n",
        "export function f(a: number: number {\n  return a;\n}\n",
    ),
    "tsx": (
        "view.tsx",
        "export const A = () => <div>{1}</div>;\n",
        "export const A = () => <p>{2}</p>;\n",
        "export const A = () => <div>{1}</div;\n",
        "export const A = () => <div>{1</div>;\n",
    ),
    "go": (
        "m.go",
        "package m\n\nfunc F(a int) int {\n\treturn a + 1\n}\n",
        "package m\n\nfunc F(a int) int {\n\treturn a + 2\n}\n",
        "package m\n\nfunc F(a int) int {\n\treturn a +\n}\n",
        "package m\n\nfunc F(a int int {\n\treturn a\n}\n",
    ),
    "rust": (
        "lib.rs",
        "fn f(a: i32) -> i32 {\n    a + 1\n}\n",
        "fn f(a: i32) -> i32 {\n    a + 2\n}\n",
        "fn f(a: i32) -> i32 {\n    a + 1\n",
        "fn f(a: i32 -> i32 {\n    a\n}\n",
    ),
    "java": (
        "A.java",
        "class A {\n    int f(int a) {\n        return a + 1;\n    }\n}\n",
        "class A {\n    int f(int a) {\n        return a + 2;\n    }\n}\n",
        "class A {\n    int f(int a) {\n        return a + 1\n    }\n}\n",
        "class A {\n    int f(int a {\n        return a;\n    }\n}\n",
    ),
    "c": (
        "f.c",
        "int f(int a)\n{\n    return a + 1;\n}\n",
        "int f(int a)\n{\n    return a + 2;\n}\n",
        "int f(int a)\n{\n    return a + ;\n}\n",
        "int f(int a\n{\n    return a;\n}\n",
    ),
    "cpp": (
        "f.cpp",
        "namespace n {\nint f(int a) { return a + 1; }\n}\n",
        "namespace n {\nint f(int a) { return a + 2; }\n}\n",
        "namespace n {\nint f(int a) { return a + 1;\n}\n",
        "namespace n {\nint f(int a { return a; }\n}\n",
    ),
    "c_sharp": (
        "A.cs",
        "class A {\n    int F(int a) { return a + 1; }\n}\n",
        "class A {\n    int F(int a) { return a + 2; }\n}\n",
        "class A {\n    int F(int a) { return a + 1 }\n}\n",
        "class A {\n    int F(int a { return a; }\n}\n",
    ),
    "ruby": ("a.rb", "def f(a)\n  a + 1\nend\n", "def f(a)\n  a + 2\nend\n", "def f(a)\n  a + 1\n", "def f(a\n  a\nend end\n"),
    "php": (
        "a.php",
        "<?php\nfunction f($a) {\n    return $a + 1;\n}\n",
        "<?php\nfunction f($a) {\n    return $a + 2;\n}\n",
        "<?php\nfunction f($a) {\n    return $a + ;\n}\n",
        "<?php\nfunction f($a {\n    return $a;\n}\n",
    ),
    "bash": (
        "run.sh",
        "if [ -f x ]; then\n  echo yes\nfi\n",
        "if [ -f y ]; then\n  echo yes\nfi\n",
        "if [ -f y ]; then\n  echo yes\n",
        "if [ -f x ]; then\n  echo yes\n",
    ),
    "html": (
        "index.html",
        '<!doctype html>\n<html>\n<body><p class="a">Hi</p></body>\n</html>\n',
        '<!doctype html>\n<html>\n<body><p class="b">Hello</p></body>\n</html>\n',
        '<!doctype html>\n<html>\n<body><p class="a>Hi</p></body>\n</html>\n',
        '<!doctype html>\n<html>\n<body><p class="a>Hi</p></body>\n</html>\n',
    ),
    "css": (
        "site.css",
        "a {\n  color: red;\n}\n",
        "a {\n  color: blue;\n}\n",
        "a {\n  color: red;\n\n",
        "a {\n  color: red;\n\n",
    ),
}
POLICY = "checks:\n  syntax: error\n"


def _apply(cli, path: str, content: str):  # type: ignore[no-untyped-def]
    return cli("apply", "--format", "whole", "--path", path, "--json", input=content)


@pytest.fixture(params=sorted(LANGUAGES))
def language(request: pytest.FixtureRequest) -> str:
    lang: str = request.param
    if not languages.available(lang):
        pytest.skip(f"no grammar for {lang} installed (pip install 'git-agent-guard[syntax]')")
    return lang


def test_breaking_edit_is_refused(language: str, repo, cli) -> None:  # type: ignore[no-untyped-def]
    path, before, _good, bad, _broken = LANGUAGES[language]
    repo.commit({path: before, ".agent-guard.yaml": POLICY})
    snap = repo.snapshot()
    result = _apply(cli, path, bad)
    assert result.code == 1, result
    (finding,) = [f for f in result.json()["findings"] if f["code"] == "syntax"]  # type: ignore[index]
    assert finding["severity"] == "error" and finding["path"] == path
    assert isinstance(finding["line"], int) and finding["line"] >= 1
    assert f"no longer parses as {language}" in finding["message"]
    assert "nearest edited line" in finding["message"]
    assert repo.snapshot() == snap


def test_clean_edit_is_applied(language: str, repo, cli) -> None:  # type: ignore[no-untyped-def]
    path, before, good, _bad, _broken = LANGUAGES[language]
    repo.commit({path: before, ".agent-guard.yaml": POLICY})
    result = _apply(cli, path, good)
    assert result.code == 0, result
    assert not [f for f in result.json()["findings"] if f["code"] == "syntax"]  # type: ignore[index]
    assert repo.read(path) == good.encode()


def test_broken_file_is_not_held_to_it(language: str, repo, cli) -> None:  # type: ignore[no-untyped-def]
    path, _before, _good, bad, broken = LANGUAGES[language]
    assert languages.problem(language, broken.encode()) is not None
    repo.commit({path: broken, ".agent-guard.yaml": POLICY})
    after = bad if bad != broken else broken.replace(" ", "  ", 1)
    assert languages.problem(language, after.encode()) is not None
    result = _apply(cli, path, after)
    assert result.code == 0, result
    assert repo.read(path) == after.encode()


def test_default_policy_warns(repo, cli) -> None:  # type: ignore[no-untyped-def]
    path, before, _good, bad, _broken = LANGUAGES["python"]
    repo.commit({path: before})
    result = _apply(cli, path, bad)
    assert result.code == 0, result
    (finding,) = [f for f in result.json()["findings"] if f["code"] == "syntax"]  # type: ignore[index]
    assert finding["severity"] == "warning"


def test_off_means_not_parsed(repo, cli) -> None:  # type: ignore[no-untyped-def]
    path, before, _good, bad, _broken = LANGUAGES["python"]
    repo.commit({path: before, ".agent-guard.yaml": "checks:\n  syntax: off\n"})
    result = _apply(cli, path, bad)
    assert result.code == 0 and not result.json()["findings"], result


def test_markdown_and_unknown_files_are_exempt(repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"README.md": "# Title\n", "notes.txt": "a\n", ".agent-guard.yaml": POLICY})
    assert _apply(cli, "README.md", "# Title\n```python\ndef f(:\n```\n").code == 0
    assert _apply(cli, "notes.txt", "{{{\n").code == 0


def test_error_line_and_nearest_edited_line(repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = "".join(f"x{i} = {i}\n" for i in range(30))
    after = before.replace("x10 = 10\n", "x10 = (10\n")
    repo.commit({"m.py": before, ".agent-guard.yaml": POLICY})
    result = _apply(cli, "m.py", after)
    (finding,) = result.json()["findings"]  # type: ignore[index]
    assert finding["line"] == 11
    # The location is the finding's own (line 11); the message adds only the column.
    assert not finding["message"].startswith("m.py")
    assert "'(' was never closed (column " in finding["message"]
    assert "nearest edited line is 11: 'x10 = (10'" in finding["message"]
    assert "    11| x10 = (10" in finding["hint"]


def test_nearest_edited_line_of_a_deletion() -> None:
    before = b"def f():\n    if x:\n        pass\n    return 1\n"
    after = b"def f():\n    if x:\n    return 1\n"
    change = make_change("m.py", Op.MODIFY, before, after)
    assert syntax.edited_lines(change) == [3]
    verdict = syntax.judge(change)
    assert verdict is not None
    problem, near = verdict
    assert problem.line == 3 and near == 3


def test_header_could_be_c_or_cpp(repo, cli) -> None:  # type: ignore[no-untyped-def]
    if not (languages.available("c") and languages.available("cpp")):
        pytest.skip("C and C++ grammars not installed")
    cpp = "namespace n {\nclass A { public: int f(); };\n}\n"
    repo.commit({"a.h": cpp, ".agent-guard.yaml": POLICY})
    # Held to the C++ grammar, which accepted it: a C++ edit applies, a broken one does not.
    assert _apply(cli, "a.h", cpp.replace("int f();", "int f() const;")).code == 0
    assert _apply(cli, "a.h", cpp.replace("int f();", "int f(;")).code == 1


def test_python_target_version_from_pyproject(repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = "def f(xs):\n    return len(xs)\n"
    after = "def f(xs):\n    if (n := len(xs)) > 1:\n        return n\n    return 0\n"
    repo.commit({"m.py": before, ".agent-guard.yaml": POLICY, "pyproject.toml": '[project]\nrequires-python = ">=3.7"\n'})
    result = _apply(cli, "m.py", after)
    assert result.code == 1, result
    assert "parsed as Python 3.7" in result.json()["findings"][0]["message"]  # type: ignore[index]
    repo.commit({"pyproject.toml": '[project]\nrequires-python = ">=3.8"\n'})
    assert _apply(cli, "m.py", after).code == 0


@pytest.mark.parametrize(
    "text, target",
    [
        ('[project]\nrequires-python = ">=3.8,<4"\n', (3, 8)),
        ('[project]\nrequires-python = "~=3.9"\n', (3, 9)),
        ('[tool.ruff]\ntarget-version = "py38"\n', (3, 8)),
        ('[tool.black]\ntarget-version = ["py310", "py39"]\n', (3, 9)),
        ('[tool.mypy]\npython_version = "3.8"\n', (3, 8)),
        ('[project]\nname = "x"\n', None),
        ('[project]\nrequires-python = ">=3.99"\n', None),  # newer than this interpreter: unnarrowed
        ("not toml [", None),
    ],
)
def test_python_target(tmp_path, text: str, target: tuple[int, int] | None) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "pyproject.toml").write_text(text)
    assert languages.python_target(tmp_path) == target


def test_missing_grammar_is_skipped_cleanly(repo, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(languages.GRAMMARS, "go", ("tree_sitter_not_installed", "language"))
    languages._parser.cache_clear()
    try:
        assert not languages.available("go")
        path, before, _good, bad, _broken = LANGUAGES["go"]
        repo.commit({path: before, ".agent-guard.yaml": POLICY})
        result = _apply(cli, path, bad)
        assert result.code == 0 and not result.json()["findings"], result
    finally:
        languages._parser.cache_clear()


def test_yaml_application_tags_are_not_errors() -> None:
    assert languages.problem("yaml", b"Resources:\n  B:\n    Value: !Ref Thing\n    Other: !GetAtt A.B\n") is None


def test_grammars_load_lazily() -> None:
    code = textwrap.dedent("""
        import sys
        from guard import checks, cli
        from guard.pipeline import engine
        from guard.checks import syntax
        from guard.tree.diffs import make_change
        from guard.model import Op
        syntax.judge(make_change("a.py", Op.MODIFY, b"x = 1\\n", b"x = (\\n"))
        assert not [m for m in sys.modules if m.startswith("tree_sitter")], "tree-sitter loaded at start-up"
        syntax.judge(make_change("a.js", Op.MODIFY, b"x = 1;\\n", b"x = (;\\n"))
        print(sorted(m for m in sys.modules if m.startswith("tree_sitter")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=checkout_env())
    if languages.available("javascript"):
        assert "tree_sitter_javascript" in out.stdout
        assert "tree_sitter_go" not in out.stdout
