"""Structural rewrites read from JSON (guard/dialects/structural.py): the two shapes, wrappers, refusals."""

from __future__ import annotations

import json

import pytest

from guard import dialects
from guard.dialects import structural
from guard.model import EditSet, ParseError, Rewrite


def js(value: object) -> str:
    return json.dumps(value)


NATIVE = {
    "rewrite": [{"pattern": "oldApi($$$ARGS)", "to": "newApi($$$ARGS)"}],
    "paths": ["src/**/*.ts"],
    "language": "typescript",
}
OMP = {"ops": [{"pat": "print($$$ARGS)", "out": "logger.info($$$ARGS)"}], "paths": ["src/**/*.py"]}


def one(
    pattern: str, to: str, paths: tuple[str, ...], language: str | None = None, selector: str | None = None, line: int = 1
) -> Rewrite:
    return Rewrite(pattern, to, paths, language, selector, line)


@pytest.mark.parametrize(
    ("name", "text", "want"),
    [
        ("native", js(NATIVE), (one("oldApi($$$ARGS)", "newApi($$$ARGS)", ("src/**/*.ts",), "typescript"),)),
        ("oh-my-pi ast_edit", js(OMP), (one("print($$$ARGS)", "logger.info($$$ARGS)", ("src/**/*.py",)),)),
        (
            "oh-my-pi path list and lang alias",
            js({"ops": [{"pat": "a($X)", "out": "b($X)"}], "path": "src/, lib/*.{ts,tsx}", "lang": "TS", "i": "rename a"}),
            (one("a($X)", "b($X)", ("src/", "lib/*.{ts,tsx}"), "typescript"),),
        ),
        (
            "selector for every op",
            js(
                {
                    "rewrite": [{"pattern": "class A { m($X) {} }", "to": "n($X) {}"}],
                    "paths": ["a.ts"],
                    "selector": "method_definition",
                }
            ),
            (one("class A { m($X) {} }", "n($X) {}", ("a.ts",), None, "method_definition"),),
        ),
        (
            "empty to deletes",
            js({"rewrite": [{"pattern": "console.log($$$)", "to": ""}], "paths": ["src"]}),
            (one("console.log($$$)", "", ("src",)),),
        ),
        (
            "tool call with arguments string",
            js({"name": "ast_edit", "arguments": js(OMP)}),
            (one("print($$$ARGS)", "logger.info($$$ARGS)", ("src/**/*.py",)),),
        ),
        (
            "tool_use input",
            js({"type": "tool_use", "name": "ast_edit", "input": OMP}),
            (one("print($$$ARGS)", "logger.info($$$ARGS)", ("src/**/*.py",)),),
        ),
        (
            "fenced",
            "Here is the rewrite:\n\n```json\n" + js(NATIVE) + "\n```\n",
            (one("oldApi($$$ARGS)", "newApi($$$ARGS)", ("src/**/*.ts",), "typescript", line=4),),
        ),
        (
            "two calls, numbered on",
            js(NATIVE) + "\n" + js(OMP),
            (
                one("oldApi($$$ARGS)", "newApi($$$ARGS)", ("src/**/*.ts",), "typescript"),
                one("print($$$ARGS)", "logger.info($$$ARGS)", ("src/**/*.py",), line=2),
            ),
        ),
    ],
)
def test_reads(name: str, text: str, want: tuple[Rewrite, ...]) -> None:
    assert structural.detect(text) == 95, name
    got = structural.parse(text)
    assert got == EditSet(files=(), format="structural", rewrites=want), name
    edits, findings = dialects.parse(text)
    assert findings == [] and edits is not None and edits.format == "structural" and edits.rewrites == want, name


@pytest.mark.parametrize(
    ("name", "call", "said"),
    [
        (
            "single in to, list in pattern",
            {"rewrite": [{"pattern": "f($$$ARGS)", "to": "g($ARGS)"}], "paths": ["a.py"]},
            "$ARGS is a single node in `to` but a list in the pattern: write $$$ARGS",
        ),
        (
            "list in to, single in pattern",
            {"rewrite": [{"pattern": "f($A)", "to": "g($$$A)"}], "paths": ["a.py"]},
            "$$$A is a list in `to` but a single node in the pattern: write $A",
        ),
        (
            "not in pattern",
            {"ops": [{"pat": "f($A)", "out": "g($A, $B)"}], "paths": ["a.py"]},
            "$B is a single node in `to` but not in the pattern",
        ),
        (
            "a digit name",
            {"ops": [{"pat": "f($A)", "out": "g($A, '$1')"}], "paths": ["a.py"]},
            "$1 is a single node in `to` but not in the pattern",
        ),
        ("anonymous", {"ops": [{"pat": "f($_)", "out": "g($_)"}], "paths": ["a.py"]}, "$_ binds nothing"),
        (
            "part of a longer name",
            {"ops": [{"pat": "f(x$A)", "out": "g($A)"}], "paths": ["a.py"]},
            "$A is a single node in `to` but not in the pattern",
        ),
        ("no paths", {"rewrite": [{"pattern": "f($A)", "to": "g($A)"}]}, "names no files"),
        ("empty paths", {"rewrite": [{"pattern": "f($A)", "to": "g($A)"}], "paths": []}, "non-empty list of paths"),
        ("both paths and path", {"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["a"], "path": "b"}, "both"),
        (
            "unknown language",
            {"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["a"], "lang": "cobol"},
            "unknown language 'cobol'",
        ),
        ("unknown key", {"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["a"], "dry_run": True}, "dry_run"),
        ("unknown op key", {"ops": [{"pat": "f($A)", "out": "g($A)", "strictness": "ast"}], "paths": ["a"]}, "strictness"),
        ("empty pattern", {"ops": [{"pat": " ", "out": "g"}], "paths": ["a"]}, '"pattern" of the rewrite at line 1 is empty'),
        ("to missing", {"ops": [{"pat": "f($A)"}], "paths": ["a"]}, '"to" of the rewrite at line 1 is missing'),
        ("to not a string", {"ops": [{"pat": "f($A)", "out": 3}], "paths": ["a"]}, "is a int, not a string"),
        ("no ops", {"ops": [], "paths": ["a"]}, "holds no operation"),
        ("both shapes", {"ops": [{"pat": "a", "out": "b"}], "rewrite": [{"pattern": "a", "to": "b"}], "paths": ["a"]}, "twice"),
    ],
)
def test_refuses(name: str, call: dict[str, object], said: str) -> None:
    with pytest.raises(ParseError) as err:
        structural.parse(js(call))
    assert said in f"{err.value.message} {err.value.hint}", (name, err.value.message, err.value.hint)
    edits, findings = dialects.parse(js(call))
    assert edits is None and [f.code for f in findings] == ["parse-error"], name


def test_the_hint_lists_what_the_pattern_binds() -> None:
    with pytest.raises(ParseError) as err:
        structural.parse(js({"rewrite": [{"pattern": "f($A, $$$REST)", "to": "g($B)"}], "paths": ["a.py"]}))
    assert "the pattern binds: $A, $$$REST" in err.value.hint


def test_broken_json_naming_a_rewrite_is_read_as_one() -> None:
    text = '{"rewrite": [{"pattern": "f($A)", "to": "g($A)"}], "paths": ["a.py"]'
    assert structural.detect(text) == 35
    edits, findings = dialects.parse(text)
    assert edits is None and findings[0].code == "parse-error" and "invalid JSON" in findings[0].message


def test_other_json_is_not_a_rewrite() -> None:
    edit = js({"file_path": "a.py", "old_string": 'p = "path"', "new_string": 'p = "pattern"'})
    assert structural.detect(edit) == 0
    edits, _ = dialects.parse(edit)
    assert edits is not None and edits.format == "json"


def test_only_input_holding_the_marker_is_asked() -> None:
    assert dialects.AUTO["structural"][1] == '"pat'
    for text in (js(NATIVE), js(OMP), js({"name": "ast_edit", "arguments": js(OMP)})):
        assert dialects.AUTO["structural"][1] in text
