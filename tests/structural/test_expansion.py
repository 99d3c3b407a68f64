"""Structural rewrites through the engine (guard/structural/expansion.py): which files, what each
match becomes, and that every rule an edit meets still holds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env

from guard.pipeline.engine import Guard

pytest.importorskip("ast_grep_py", reason="structural rewrites need the `structural` extra")


def rewrite(pattern: str, to: str, paths: list[str], **more: object) -> str:
    return json.dumps({"rewrite": [{"pattern": pattern, "to": to}], "paths": paths, **more})


def codes(report: object) -> list[str]:
    return [f.code for f in report.findings if f.severity == "error"]  # type: ignore[attr-defined]


def said(report: object) -> str:
    return " ".join(f"{f.message} {f.hint}" for f in report.findings)  # type: ignore[attr-defined]


TS = "import { oldApi } from './api';\nexport const a = oldApi(1, 2);\n"


def test_check_changes_nothing_and_the_diff_is_the_preview(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"src/a.ts": TS, "src/b.ts": "oldApi();\n"})
    before = repo.snapshot()
    result = cli("apply", "--check", "--diff", input=rewrite("oldApi($$$A)", "newApi($$$A)", ["src"]))
    assert result.code == 0, result
    assert "would apply (structural): 2 files" in result.stdout
    assert "-export const a = oldApi(1, 2);\n+export const a = newApi(1, 2);" in result.stdout
    assert repo.snapshot() == before


def test_a_rewrite_is_one_turn_and_rolls_back_whole(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"src/a.ts": TS, "src/b.ts": "oldApi();\n"})
    applied = cli("apply", "--json", input=rewrite("oldApi($$$A)", "newApi($$$A)", ["src/**/*.ts"]))
    assert applied.code == 0, applied
    assert repo.read("src/b.ts") == b"newApi();\n"
    turn = applied.json()["turn"]
    assert isinstance(turn, dict)
    shown = repo.git("diff", "--name-only", f"{turn['commit']}^", turn["commit"])
    assert shown.split() == ["src/a.ts", "src/b.ts"]
    undone = cli("rollback")
    assert undone.code == 0, undone
    assert repo.read("src/a.ts") == TS.encode() and repo.read("src/b.ts") == b"oldApi();\n"


def test_files_the_agent_created_are_its_own_to_rewrite(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"src/a.py": "fetch(1)\n"})
    made = cli("apply", input=json.dumps({"file_path": "src/new.py", "content": "fetch(2)\n"}))
    assert made.code == 0, made
    repo.write({"src/user.py": "fetch(3)\n"})  # the user's, untracked
    result = cli("apply", "--json", input=rewrite("fetch($X)", "get($X)", ["src"]))
    assert result.code == 0, result
    assert repo.read("src/a.py") == b"get(1)\n" and repo.read("src/new.py") == b"get(2)\n"
    assert repo.read("src/user.py") == b"fetch(3)\n"


def test_more_files_than_the_budget_is_refused_with_the_first_matches(repo: Repo) -> None:
    repo.commit({".agent-guard.yaml": "budget:\n  per_edit: {files: 2}\n", **{f"m/f{i}.py": f"x = old({i})\n" for i in range(3)}})
    before = repo.snapshot()
    report = Guard(repo.root).apply(rewrite("old($X)", "new($X)", ["m"]))
    assert report.status == "refused" and codes(report) == ["budget"], report
    assert "3 places in 3 files; one edit may change 2 files (budget.per_edit.files" in said(report)
    assert "m/f0.py:1: old(0)" in said(report)
    assert repo.snapshot() == before


def test_matches_in_a_protected_file_are_named_never_quoted(repo: Repo) -> None:
    """A refusal that lists matches (over budget, a match holding more than its pattern) must not
    show a file the agent may not read by that route.  (Where its edits are refused too, the
    rewrite is refused before any file is read: tests/structural/test_protected_files.py.)"""
    repo.commit(
        {
            ".agent-guard.yaml": (
                'checks: {path-protected: warning}\npaths:\n  protected_extra: ["secrets/*"]\nbudget:\n  per_edit: {hunks: 1}\n'
            ),
            "secrets/k.json": '{"token": "SUPERSECRET"}\n',
            "secrets/k.js": "let s = 'SUPERSECRET', t = 2;\n",
            "pub.json": '{"a": "PUBLIC"}\n',
        }
    )
    before = repo.snapshot()
    for edit in (
        rewrite('"$V"', '"X"', ["pub.json", "secrets/k.json"]),
        rewrite("let $A = $B", "const $A = $B", ["secrets/k.js"]),
    ):
        report = Guard(repo.root).apply(edit, check=True)
        assert report.status == "refused" and codes(report) in (["budget"], ["parse-error"]), report
        shown = said(report) + json.dumps(report.as_dict())  # type: ignore[attr-defined]
        assert "SUPERSECRET" not in shown, shown
        assert "secrets/k." in shown  # the file is named
    assert repo.snapshot() == before


def test_a_budget_that_only_warns_lets_it_through(repo: Repo) -> None:
    repo.commit({".agent-guard.yaml": "checks: {budget: warning}\nbudget:\n  per_edit: {hunks: 1}\n", "a.py": "old(1)\nold(2)\n"})
    report = Guard(repo.root).apply(rewrite("old($X)", "new($X)", ["a.py"]))
    assert report.status == "applied", report
    assert repo.read("a.py") == b"new(1)\nnew(2)\n"


def test_a_rewrite_that_changes_nothing_writes_nothing(repo: Repo) -> None:
    repo.commit({"a.py": "f(1)\n"})
    before = repo.snapshot()
    report = Guard(repo.root).apply(rewrite("f($X)", "f($X)", ["a.py"]))
    assert report.status == "applied" and report.turn is None and not report.changes, report
    assert [f.code for f in report.findings] == ["no-op"]
    assert repo.snapshot() == before


def test_a_metavariable_outside_the_selected_node_binds_nothing(repo: Repo) -> None:
    repo.commit({"a.js": "class A { m(y) { return 1; } }\n"})
    call = {
        "rewrite": [{"pattern": "class $C { m($X) { return 1; } }", "to": "n($X) { return $C; }"}],
        "selector": "method_definition",
        "paths": ["a.js"],
    }
    before = repo.snapshot()
    report = Guard(repo.root).apply(json.dumps(call))
    assert report.status == "refused" and codes(report) == ["parse-error"], report
    assert "uses $C, which the match at a.js:1" in said(report)
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("name", "files", "pattern", "to", "lost"),
    [
        ("a semicolon", {"a.js": "function f() {\n  return q;\n}\n"}, "return $A", "return wrap($A)", "a.js:2: return q;"),
        ("the other declarators", {"a.js": "let x = 1, y = 2;\n"}, "let $A = $B", "const $A = $B", "a.js:1: let x = 1, y = 2;"),
        ("a comment", {"a.js": "foo(a /* c */, b);\n"}, "foo($A, $B)", "bar($A, $B)", "a.js:1: foo(a /* c */, b)"),
        ("the body", {"a.py": "def f(x):\n    return x\n"}, "def $F($$$P)", "def g($$$P)", "a.py:1: def f(x): …"),
    ],
)
def test_a_match_that_holds_more_than_its_pattern_is_refused(
    repo: Repo, name: str, files: dict[str, str], pattern: str, to: str, lost: str
) -> None:
    repo.commit(files)
    before = repo.snapshot()
    report = Guard(repo.root).apply(rewrite(pattern, to, ["."]))
    assert report.status == "refused" and codes(report) == ["parse-error"], (name, report)
    assert "matches more than it says" in said(report) and lost in said(report), (name, said(report))
    assert repo.snapshot() == before


def test_line_ends_bom_and_a_missing_final_newline_are_kept(repo: Repo) -> None:
    repo.commit(
        {
            "crlf.py": b"a = old(1)\r\nb = 2\r\nc = old(\r\n    3)\r\n",
            "bom.py": b"\xef\xbb\xbfold(1)\n",
            "tail.py": b"x = 1\nold(2)",
        }
    )
    report = Guard(repo.root).apply(rewrite("old($X)", "new(\n$X)", ["*.py"]))
    assert report.status == "applied", report
    assert repo.read("crlf.py") == b"a = new(\r\n1)\r\nb = 2\r\nc = new(\r\n3)\r\n"
    assert repo.read("bom.py") == b"\xef\xbb\xbfnew(\n1)\n"
    assert repo.read("tail.py") == b"x = 1\nnew(\n2)"


def test_without_the_binding_the_rewrite_is_refused_with_how_to_install_it(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({"a.py": "f(1)\n"})
    monkeypatch.setitem(sys.modules, "ast_grep_py", None)  # `import ast_grep_py` now fails
    before = repo.snapshot()
    report = Guard(repo.root).apply(rewrite("f($X)", "g($X)", ["a.py"]))
    assert report.status == "refused" and codes(report) == ["parse-error"], report
    assert "ast-grep-py" in said(report) and "pip install 'ast-grep-py>=0.51'" in said(report)
    assert repo.snapshot() == before


@pytest.mark.parametrize("path", ["../x/*.py", "/etc/*.conf", "src/../../y.py"])
def test_paths_outside_the_repository_are_refused(repo: Repo, path: str) -> None:
    repo.commit({"a.py": "f(1)\n"})
    report = Guard(repo.root).apply(rewrite("f($X)", "g($X)", [path]))
    assert report.status == "refused" and codes(report) == ["path-outside"], report


def test_a_file_of_no_known_language_must_be_named_one(repo: Repo) -> None:
    repo.commit({"tools/run": "f(1)\n", "tools/x.py": "f(2)\n"})
    report = Guard(repo.root).apply(rewrite("f($X)", "g($X)", ["tools/run"]))
    assert report.status == "refused" and codes(report) == ["parse-error"] and '"language"' in said(report), report
    named = Guard(repo.root).apply(rewrite("f($X)", "g($X)", ["tools/run"], language="python"))
    assert named.status == "applied", named
    assert repo.read("tools/run") == b"g(1)\n" and repo.read("tools/x.py") == b"f(2)\n"


def test_with_a_language_other_files_are_left_out_and_said(repo: Repo) -> None:
    repo.commit({"src/a.ts": "f(1);\n", "src/b.py": "f(2)\n"})
    report = Guard(repo.root).apply(rewrite("f($X)", "g($X)", ["src"], language="ts"))
    assert report.status == "applied", report
    assert repo.read("src/a.ts") == b"g(1);\n" and repo.read("src/b.py") == b"f(2)\n"
    assert any("left out 1 file its paths name in other languages" in n for n in report.notes), report.notes


def test_operations_apply_in_order(repo: Repo) -> None:
    repo.commit({"a.py": "a(1)\n"})
    ops = {"ops": [{"pat": "a($X)", "out": "b($X)"}, {"pat": "b($X)", "out": "c($X, $X)"}], "paths": ["a.py"]}
    report = Guard(repo.root).apply(json.dumps(ops))
    assert report.status == "applied", report
    assert repo.read("a.py") == b"c(1, 1)\n"


def test_an_operation_that_matches_nothing_refuses_the_call(repo: Repo) -> None:
    repo.commit({"a.py": "a(1)\n"})
    ops = {"ops": [{"pat": "a($X)", "out": "b($X)"}, {"pat": "zzz($X)", "out": "c($X)"}], "paths": ["a.py"]}
    before = repo.snapshot()
    report = Guard(repo.root).apply(json.dumps(ops))
    assert report.status == "refused" and codes(report) == ["not-found"] and "rewrite #2" in said(report), report
    assert repo.snapshot() == before


def test_a_pattern_that_is_no_code_says_where_it_does_not_parse(repo: Repo) -> None:
    repo.commit({"a.py": "def f(x):\n    return x\n"})
    report = Guard(repo.root).apply(rewrite("def $F($$$P)", "def g($$$P)", ["a.py"]))
    assert report.status == "refused" and codes(report) == ["parse-error"], report
    assert "the pattern is no python code on its own: it does not parse at column 1" in said(report)
    nothing = Guard(repo.root).apply(rewrite("class $C(", "class D(", ["a.py"]))
    assert nothing.status == "refused" and codes(nothing) == ["not-found"], nothing
    assert "the pattern is no python code on its own" in said(nothing)


def test_a_match_inside_a_match_keeps_its_text(repo: Repo) -> None:
    repo.commit({"a.js": "f(f(1));\n"})
    report = Guard(repo.root).apply(rewrite("f($X)", "g($X)", ["a.js"]))
    assert report.status == "applied", report
    assert repo.read("a.js") == b"g(f(1));\n"  # ast-grep's rule: the outer match, its inside as it was


def test_a_selector_matches_the_node_inside_its_context(repo: Repo) -> None:
    repo.commit({"main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("a")\n}\n'})
    call = {
        "rewrite": [{"pattern": "func t() { fmt.Println($$$A) }", "to": "log.Print($$$A)"}],
        "selector": "call_expression",
        "paths": ["*.go"],
    }
    report = Guard(repo.root).apply(json.dumps(call))
    assert report.status == "applied", report
    assert b'\tlog.Print("a")\n' in repo.read("main.go")


def test_the_policy_file_is_never_rewritten(repo: Repo) -> None:
    repo.commit({".agent-guard.yaml": "checks:\n  placeholder: error\n", "conf/app.yaml": "placeholder: error\n"})
    before = repo.snapshot()
    report = Guard(repo.root).apply(rewrite("placeholder: error", "placeholder: off", ["**/*.yaml", ".agent-guard.yaml"]))
    assert report.status == "refused" and "path-protected" in codes(report), report
    assert repo.snapshot() == before


def test_read_before_edit_holds_a_rewrite_to_the_agent_s_reads(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({".agent-guard.yaml": "extends: strict\n", "a.py": "f(1)\n"})
    call = rewrite("f($X)", "g($X)", ["a.py"])
    refused = cli("apply", "--json", input=call)
    assert refused.code == 1 and "stale" in [f["code"] for f in refused.json()["findings"]], refused
    assert cli("read", "a.py").code == 0
    applied = cli("apply", "--json", input=call)
    assert applied.code == 0, applied
    assert repo.read("a.py") == b"g(1)\n"


def test_paths_start_from_the_current_folder(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "f(0)\n", "src/b.py": "f(1)\n", "src/deep/c.py": "f(2)\n"})
    result = cli("apply", input=rewrite("f($X)", "g($X)", ["*.py"]), cwd=repo.root / "src")
    assert result.code == 0, result
    assert repo.read("a.py") == b"f(0)\n"
    assert repo.read("src/b.py") == b"g(1)\n" and repo.read("src/deep/c.py") == b"g(2)\n"


def test_a_diff_loads_no_structural_code_and_a_rewrite_parses_without_the_binding(repo: Repo) -> None:
    code = (
        "import sys\n"
        "from guard import dialects\n"
        "dialects.parse('--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n')\n"
        "diff = sorted(m for m in sys.modules if 'structural' in m or m == 'ast_grep_py')\n"
        "edits, _ = dialects.parse(sys.argv[1])\n"
        "print(diff, edits.format, 'ast_grep_py' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, rewrite("f($X)", "g($X)", ["a.py"])],
        cwd=Path(repo.root),
        capture_output=True,
        text=True,
        env=checkout_env(),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[]", "structural", "False"]
