"""The definitions a file holds, read with its grammar or by the line rule (``guard.syntax.definitions``).

What tells a snippet from a whole file: a fenced block taken for the whole new text of a
file that leaves out some of them would delete them (tests/cases/whole-auto-detected-*).
"""

from __future__ import annotations

from collections import Counter

import pytest

from guard.syntax import definitions

FILES = {
    "a.py": (
        "import os\nif True:\n    def cond(): pass\nclass K:\n    def m(self):\n        def inner(): pass\n"
        "    async def n(self): pass\ndef f(): pass\n",
        {"cond", "K", "m", "n", "f"},
    ),
    "a.js": (
        "import x from 'y';\nexport function a() { return 1; }\nfunction b() {}\nconst c = () => 1;\nclass K {\n"
        "  m1() {}\n  m2() { function inner() {} }\n}\ndescribe('x', () => { it('y', () => {}); });\n",
        {"a", "b", "c", "K", "m1", "m2"},
    ),
    "a.ts": (
        "interface I { x: number }\nexport class C implements I { x = 1; get() { return this.x; } }\nfunction f(): void {}\n",
        {"I", "C", "get", "f"},
    ),
    "A.java": (
        "package p;\npublic class A {\n  public A() {}\n  void m() {}\n  static int n(int x) { return x; }\n}\n",
        {"A", "m", "n"},
    ),
    "a.c": (
        "#include <stdio.h>\nstruct S { int x; };\nstatic int *f(int x) { return 0; }\nint main(void) { return 0; }\n",
        {"S", "f", "main"},
    ),
    "a.cpp": ("namespace n { class K { public: void m() {} ~K() {} }; int g() { return 1; } }\n", {"n", "K", "m", "~K", "g"}),
    "a.go": ("package main\ntype T struct{}\nfunc (t T) M() {}\nfunc main() {}\n", {"T", "M", "main"}),
    "a.rs": (
        "struct S;\nimpl S { fn new() -> S { S } fn go(&self) {} }\nfn main() {}\nmod m { pub fn f() {} }\n",
        {"S", "new", "go", "main", "m", "f"},
    ),
    "a.rb": ("module M\n  class K\n    def a; end\n    def self.b; end\n  end\nend\n", {"M", "K", "a", "b"}),
    "a.php": ("<?php\nclass K { function m() {} }\nfunction f() {}\n", {"K", "m", "f"}),
    "a.sh": ("f() { echo; }\nfunction g { echo; }\n", {"f", "g"}),
    "a.cs": ("namespace N { class K { void M() {} K() {} } }\n", {"K", "M"}),
    "a.lua": ("local function f() end\nfunction M.g() end\nfunction h() end\n", {"f", "M.g", "h"}),  # the line rule
    "a.md": ("# Title\n\ndef is prose here\n", set()),
    "a.yaml": ("class Foo: bar\n", set()),
}


@pytest.mark.parametrize("name", list(FILES))
def test_names(name: str) -> None:
    text, want = FILES[name]
    old, new = definitions.names(name, text, text)
    assert set(old) == want and old == new


def test_a_file_that_does_not_parse_is_read_by_the_line_rule() -> None:
    old, new = definitions.names("a.py", "def f(:\n    pass\nclass K:\n    pass\n", "def f():\n    pass\n")
    assert old == Counter({"f": 1, "K": 1}) and new == Counter({"f": 1})


def test_deep_nesting_costs_nothing() -> None:
    deep = "x = " + "[" * 20_000 + "]" * 20_000 + ";\nfunction f() {}\n"
    old, _new = definitions.names("a.js", deep, "")
    assert old == Counter({"f": 1})
    deep_py = "class A:\n" + "".join("    " * i + f"class C{i}:\n" for i in range(1, 90)) + "    " * 90 + "pass\n"
    old, _new = definitions.names("a.py", deep_py, "")
    assert "A" in old and "C1" in old and "C89" not in old  # the classes down to the depth bound
