"""Recall and false alarms of the `placeholder` check on held-out wordings (run by hand).

Two lists, written and frozen before the rule that judges them (so the figures are
on wordings the rule was not written from):

- ``elision_wordings.txt``: lines that stand in for code, in many wordings, comment
  syntaxes, languages, ellipsis characters, brackets and line ranges, some spelled
  with look-alike letters or invisible characters;
- ``elision_comments.txt``: legitimate comments that explain new code, many of them
  holding the words elisions use.

Set 1 (the files above) was written before the rule and then used while shaping it
(its misses and false alarms were looked at); set 2 (``*_2.txt``) was written after
the rule was committed and measured once, unchanged.

Each line is put in a small function of its language (``WHERE`` is the file suffix)
in place of three real lines of its body, as a str_replace of those lines would, or,
for ``py:doc``, as the body of a docstring written where three lines of code were.

    elisions, alone      the line replaces the three lines (a finding must name its line)
    elisions, then code  the line and one new line of code replace them (likewise)
    comments, then code  the comment and one new line replace them: any finding is a false alarm
    comments, alone      the comment alone replaces them (the strictest reading; reported apart)

With --engine the first and third passes also go through the whole engine as an
agent's JSON str_replace (``{"command": "str_replace", ...}``, ``Guard.apply`` with
``check=True``) in a scratch repository holding every template file; a finding
counts when it is a ``placeholder`` finding.

    python bench/elision_wordings.py [--engine] [--show] [--set N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # noqa: E402  (bench/, this script's folder)

from guard.checks import placeholder  # noqa: E402
from guard.checks.base import CheckInput, no_attr  # noqa: E402
from guard.model import Op  # noqa: E402
from guard.policy import load  # noqa: E402
from guard.tree.diffs import make_change  # noqa: E402

HERE = Path(__file__).resolve().parent
POLICY = load(None, "default")

# suffix -> (the function's lines, index of the first of the three lines replaced, a new line of code).
TEMPLATES: dict[str, tuple[list[str], int, str]] = {
    "py": (
        [
            "def total(items):",
            "    count = 0",
            "    for item in items:",
            "        count += item.price",
            "    log.debug('total %s', count)",
            "    return count",
        ],
        1,
        "    count = sum(i.price for i in items)",
    ),
    "js": (
        [
            "function total(items) {",
            "  let count = 0;",
            "  for (const item of items) {",
            "    count += item.price; }",
            "  log.debug('total', count);",
            "  return count;",
            "}",
        ],
        1,
        "  const count = items.reduce((a, i) => a + i.price, 0);",
    ),
    "ts": (
        [
            "export function total(items: Item[]): number {",
            "  let count = 0;",
            "  for (const item of items) {",
            "    count += item.price; }",
            "  log.debug('total', count);",
            "  return count;",
            "}",
        ],
        1,
        "  const count = items.reduce((a, i) => a + i.price, 0);",
    ),
    "go": (
        [
            "func Total(items []Item) int {",
            "\tcount := 0",
            "\tfor _, item := range items {",
            "\t\tcount += item.Price }",
            '\tlog.Printf("total %d", count)',
            "\treturn count",
            "}",
        ],
        1,
        "\tcount := sum(items)",
    ),
    "rs": (
        [
            "fn total(items: &[Item]) -> u64 {",
            "    let mut count = 0;",
            "    for item in items {",
            "        count += item.price; }",
            '    debug!("total {}", count);',
            "    count",
            "}",
        ],
        1,
        "    let count = items.iter().map(|i| i.price).sum();",
    ),
    "java": (
        [
            "class Cart {",
            "  int total(List<Item> items) {",
            "    int count = 0;",
            "    for (Item item : items) {",
            "      count += item.price; }",
            '    log.debug("total {}", count);',
            "    return count;",
            "  }",
            "}",
        ],
        2,
        "    int count = items.stream().mapToInt(Item::price).sum();",
    ),
    "cs": (
        [
            "class Cart {",
            "  int Total(List<Item> items) {",
            "    int count = 0;",
            "    foreach (var item in items) {",
            "      count += item.Price; }",
            "    Log.Debug(count);",
            "    return count;",
            "  }",
            "}",
        ],
        2,
        "    int count = items.Sum(i => i.Price);",
    ),
    "c": (
        [
            "int total(const struct item *items, size_t n) {",
            "    int count = 0;",
            "    for (size_t i = 0; i < n; i++)",
            "        count += items[i].price;",
            '    debug("total %d", count);',
            "    return count;",
            "}",
        ],
        1,
        "    int count = sum_prices(items, n);",
    ),
    "cpp": (
        [
            "int total(const std::vector<Item>& items) {",
            "    int count = 0;",
            "    for (const auto& item : items)",
            "        count += item.price;",
            '    debug("total", count);',
            "    return count;",
            "}",
        ],
        1,
        "    int count = std::accumulate(items.begin(), items.end(), 0, add_price);",
    ),
    "kt": (
        [
            "fun total(items: List<Item>): Int {",
            "    var count = 0",
            "    for (item in items) {",
            "        count += item.price }",
            '    log.debug("total $count")',
            "    return count",
            "}",
        ],
        1,
        "    val count = items.sumOf { it.price }",
    ),
    "swift": (
        [
            "func total(items: [Item]) -> Int {",
            "    var count = 0",
            "    for item in items {",
            "        count += item.price }",
            '    log.debug("total \\(count)")',
            "    return count",
            "}",
        ],
        1,
        "    let count = items.reduce(0) { $0 + $1.price }",
    ),
    "rb": (
        [
            "def total(items)",
            "  count = 0",
            "  items.each do |item|",
            "    count += item.price end",
            "  log.debug(count)",
            "  count",
            "end",
        ],
        1,
        "  count = items.sum(&:price)",
    ),
    "sh": (
        ["build() {", "  mkdir -p out", "  make -C src", "  cp src/app out/", "  echo built", "}"],
        1,
        "  make -C src install DESTDIR=out",
    ),
    "sql": (
        ["SELECT id,", "       name,", "       price,", "       stock,", "       updated_at", "FROM items", "WHERE price > 0;"],
        1,
        "       total,",
    ),
    "lua": (
        [
            "function total(items)",
            "  local count = 0",
            "  for _, item in ipairs(items) do",
            "    count = count + item.price end",
            "  log.debug(count)",
            "  return count",
            "end",
        ],
        1,
        "  local count = sum(items)",
    ),
    "php": (
        [
            "function total($items) {",
            "    $count = 0;",
            "    foreach ($items as $item) {",
            "        $count += $item->price; }",
            "    debug($count);",
            "    return $count;",
            "}",
        ],
        1,
        "    $count = array_sum(array_column($items, 'price'));",
    ),
    "hs": (
        [
            "area :: Shape -> Double",
            "area (Circle r) = pi * r * r",
            "area (Square s) = s * s",
            "area (Rect w h) = w * h",
            "area (Tri b h) = b * h / 2",
            "area Empty = 0",
        ],
        1,
        "area (Disc r) = pi * r * r",
    ),
    "el": (
        [
            "(defun total (items)",
            "  (let ((count 0))",
            "    (dolist (item items)",
            "      (setq count (+ count 1)))",
            '    (message "%d" count)',
            "    count))",
        ],
        1,
        "  (let ((count (length items)))",
    ),
    "html": (
        [
            '<form action="/save">',
            "  <label>Name</label>",
            '  <input name="name">',
            '  <input name="email">',
            "  <button>Save</button>",
            "</form>",
        ],
        1,
        '  <input name="phone">',
    ),
    "css": ([".card {", "  margin: 0;", "  padding: 4px;", "  color: #333;", "  border: 0;", "}"], 1, "  gap: 2px;"),
}
# py:doc: the docstring's new body line stands where three lines of code were.
DOC_BEFORE = [
    "def total(items):",
    '    """Sum the prices of the items."""',
    "    count = 0",
    "    for item in items:",
    "        count += item.price",
    "    log.debug('total %s', count)",
    "    return count",
]


def read_list(name: str) -> list[tuple[str, str, str]]:
    """(section, where, text) of each entry of a frozen list."""
    out: list[tuple[str, str, str]] = []
    section = ""
    for raw in (HERE / name).read_text(encoding="utf-8").splitlines():
        if raw.startswith("# --"):
            section = raw.strip("# -")
            continue
        if not raw.strip() or raw.startswith("#"):
            continue
        where, _bar, text = raw.partition(" | ")
        text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        out.append((section, where.strip(), text))
    return out


def texts(where: str, text: str, then_code: bool) -> tuple[str, str, str, int]:
    """(file name, old text, new text, line number of `text` in the new text)."""
    if where == "py:doc":
        after = DOC_BEFORE[:1] + ['    """Sum the prices of the items.', "", f"    {text}", '    """']
        after += ["    count = sum(i.price for i in items)"] if then_code else []
        after += DOC_BEFORE[5:]
        return "cart.py", "\n".join(DOC_BEFORE) + "\n", "\n".join(after) + "\n", 4
    lines, at, code = TEMPLATES[where]
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    new = [f"{indent}{text}", *([code] if then_code else [])]
    after = lines[:at] + new + lines[at + 3 :]
    return f"cart.{where}", "\n".join(lines) + "\n", "\n".join(after) + "\n", at + 1


def flagged(where: str, text: str, then_code: bool) -> bool:
    """The check reports the line `text` itself."""
    name, old, new, number = texts(where, text, then_code)
    change = make_change(name, Op.MODIFY, old.encode(), new.encode(), old_mode=0o100644, new_mode=0o100644)
    found = placeholder.check(CheckInput((change,), POLICY, lambda _p: True, no_attr, None), "error")
    return any(f.line == number for f in found)


class Engine:
    """A scratch repository holding every template, edited through Guard.apply as JSON str_replace calls."""

    def __init__(self, root: Path) -> None:
        from guard.pipeline.engine import Guard

        os.environ.update(GIT_ENV)
        for where, (lines, _at, _code) in TEMPLATES.items():
            (root / f"cart.{where}").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (root / "doc").mkdir()
        (root / "doc" / "cart.py").write_text("\n".join(DOC_BEFORE) + "\n", encoding="utf-8")
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=60, check=True)
        self.guard = Guard(root)

    def flagged(self, where: str, text: str, then_code: bool) -> bool:
        name, old, new, number = texts(where, text, then_code)
        # The smallest str_replace: the lines that differ, as an agent would send them.
        a, b = old.split("\n"), new.split("\n")
        head = 0
        while a[head] == b[head]:
            head += 1
        tail = 0
        while a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
            tail += 1
        call = {
            "command": "str_replace",
            "path": ("doc/" if where == "py:doc" else "") + name,
            "old_str": "\n".join(a[head : len(a) - tail]),
            "new_str": "\n".join(b[head : len(b) - tail]),
        }
        report = self.guard.apply(json.dumps(call), format="json", check=True)
        return any(f.code == "placeholder" for f in report.findings)


def measure(
    entries: list[tuple[str, str, str]], then_code: bool, want: bool, show: bool, judge: object = flagged
) -> tuple[int, int, dict[str, list[int]]]:
    """(entries judged as `want`, entries, per section [as wanted, total]); prints the others with --show."""
    right = 0
    sections: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for section, where, text in entries:
        got = judge(where, text, then_code)  # type: ignore[operator]
        ok = got == want
        right += ok
        sections[section][0] += ok
        sections[section][1] += 1
        if show and not ok:
            print(f"    {'MISSED' if want else 'FALSE ALARM'} {where}: {text!r}")
    return right, len(entries), sections


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", action="store_true", help="also run through the whole engine (JSON str_replace)")
    ap.add_argument("--show", action="store_true", help="print every miss and false alarm")
    ap.add_argument("--set", default=None, help="one pair of lists: 1 (elision_*.txt), 2 (elision_*_2.txt), ...")
    args = ap.parse_args()
    suffixes = [""] + [f"_{n}" for n in range(2, 10) if (HERE / f"elision_wordings_{n}.txt").is_file()]
    if args.set is not None:
        suffixes = ["" if args.set == "1" else f"_{args.set}"]
    for suffix in suffixes:
        run_set(suffix, args.engine, args.show)
    return 0


def run_set(suffix: str, engine_too: bool, show: bool) -> None:
    elisions = read_list(f"elision_wordings{suffix}.txt")
    comments = read_list(f"elision_comments{suffix}.txt")
    print(f"set {suffix.lstrip('_') or 1}: {len(elisions)} elision wordings, {len(comments)} explanatory comments")
    # (title, entries, the line followed by new code, flagged is right, the main figure: print per section)
    rows = [
        ("elisions, alone", elisions, False, True, True),
        ("elisions, then code", elisions, True, True, False),
        ("comments, then code", comments, True, False, True),
        ("comments, alone", comments, False, False, False),
    ]
    for title, entries, then_code, want, main_row in rows:
        right, total, sections = measure(entries, then_code, want, show and main_row)
        figure = (
            f"recall {right}/{total} = {100 * right / total:.1f}%"
            if want
            else f"false alarms {total - right}/{total} = {100 * (total - right) / total:.1f}%"
        )
        print(f"{title:<22} {figure}")
        if main_row:
            for section, (ok, n) in sections.items():
                shown = f"{ok}/{n}" if want else f"{n - ok}/{n} false alarms"
                print(f"    {section:<58} {shown}")
    if engine_too:
        with tempfile.TemporaryDirectory() as tmp:
            engine = Engine(Path(tmp))
            for title, entries, then_code, want, _main in rows[0], rows[2]:
                right, total, _sections = measure(entries, then_code, want, show, engine.flagged)
                figure = f"recall {right}/{total}" if want else f"false alarms {total - right}/{total}"
                print(f"engine: {title:<22} {figure}")


if __name__ == "__main__":
    raise SystemExit(main())
