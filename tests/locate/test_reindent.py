"""A line-addressed edit that only re-indents the lines it names is a `no-op` (issue 36).

Models that retype a line to change it and leave the change out send the line back with other
indentation; applied, the file changes nothing but its layout.  A re-indentation that repairs
the file's own, or that changes what a Python or YAML file means, is a real edit.
"""

from __future__ import annotations

from guard.locate import ALL_TIERS, apply_splices, locate_changes
from guard.model import LineRange
from guard.text.textfile import split

JS = "function f(x) {\n  if (x) {\n    return x + 1;\n  }\n  return 0;\n}\n"


def put(path: str, text: str, start: int, end: int, *new: str) -> tuple[str | None, list[str], str]:
    """(the new text or None, finding codes, the first finding's message and hint)."""
    out = locate_changes(split(text), (LineRange(start, end, new),), ALL_TIERS, path)
    if out.findings:
        f = out.findings[0]
        return None, [x.code for x in out.findings], f"{f.message} / {f.hint}"
    return apply_splices(split(text), out.splices)[0].encode().decode(), [], ""


def test_a_line_sent_back_with_other_indentation_is_a_no_op() -> None:
    after, codes, said = put("a.js", JS, 3, 3, "      return x + 1;")
    assert after is None and codes == ["no-op"]
    assert "only re-indents line 3" in said and "the change it was meant to make is missing" in said
    assert "indented as the file has it (4 spaces)" in said
    # Several lines, one of them moved deeper: the same.
    assert put("a.js", JS, 2, 4, "    if (x) {", "      return x + 1;", "    }")[1] == ["no-op"]


def test_a_real_change_with_other_indentation_is_applied() -> None:
    after, codes, _said = put("a.js", JS, 3, 3, "      return x + 2;")
    assert codes == [] and after is not None and "      return x + 2;" in after


def test_a_repair_of_the_files_indentation_is_applied() -> None:
    crooked = JS.replace("    return x + 1;", "      return x + 1;")
    after, codes, _said = put("a.js", crooked, 3, 3, "    return x + 1;")
    assert codes == [] and after == JS


def test_in_python_a_reindent_that_changes_the_blocks_is_an_edit() -> None:
    py = "def f(x):\n    if x:\n        y = 1\n        return y\n    return 0\n"
    after, codes, _said = put("a.py", py, 4, 4, "    return y")
    assert codes == [] and after is not None and "\n    return y\n" in after
    # ...one that breaks the file, or leaves its meaning as it was, is not.
    assert put("a.py", py, 3, 3, "          y = 1")[1] == ["no-op"]
    call = "x = f(1,\n      2)\n"
    assert put("a.py", call, 2, 2, "  2)")[1] == ["no-op"]


def test_in_yaml_a_reindent_that_moves_a_key_is_an_edit() -> None:
    yml = "a:\n  b: 1\n  c: 2\n"
    assert put("a.yml", yml, 3, 3, "c: 2")[1] == []
    assert put("a.yml", yml, 3, 3, "      c: 2")[1] == ["no-op"]  # no longer parses
