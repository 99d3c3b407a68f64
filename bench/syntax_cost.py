"""What the `syntax` check costs, and how often it refuses a clean edit (run by hand).

1. Cost: for each supported language, a 5,000-line file (a template of ordinary
   code repeated with fresh names) gets a one-line edit that keeps it parsing (one
   parse: the result) and one that breaks it (the result, then the original, then
   the error is located).  Also the first use of each grammar (import + load).
2. Start-up: importing the CLI and the checks loads no grammar.
3. False refusals: the edits of bench/lazy_corpus.py's corpus (Python standard
   library, npm's JavaScript), applied whole.  An edit is clean when an independent
   parser accepts its result and the original: CPython's full compiler (`compile`)
   for Python, `node --check` (V8) for JavaScript.  Every `syntax` finding on a
   clean edit is a false refusal.

    python bench/syntax_cost.py [--lines 5000] [--repeat 5] [--files 150] [--edits 4]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

ESM = re.compile(r"^\s*(?:import\s*[\w{*'\"]|export\s)", re.MULTILINE)

# (language, file name, a template of about ten lines; {n} is replaced by a counter)
TEMPLATES: list[tuple[str, str, str]] = [
    (
        "python",
        "big.py",
        "def f{n}(a, b=None):\n    if a:\n        return [x * {n} for x in a]\n    d = {{'k': b, 'n': {n}}}\n"
        "    try:\n        return d['k']\n    except KeyError:\n        return None\n\n\n",
    ),
    ("json", "big.json", None),  # built below: one object per line in an array
    (
        "yaml",
        "big.yaml",
        "key{n}:\n  name: item {n}\n  tags: [a, b, c]\n  nested:\n    value: {n}\n    flag: true\n"
        '  list:\n    - one\n    - two\n  text: "quoted {n}"\n',
    ),
    (
        "toml",
        "big.toml",
        '[section{n}]\nname = "item {n}"\nvalue = {n}\nflag = true\nlist = [1, 2, 3]\n'
        'nested = {{ a = 1, b = "x" }}\nfloat = 1.5\ndate = 2024-01-01\n# comment {n}\n\n',
    ),
    (
        "javascript",
        "big.js",
        "function f{n}(a, b = null) {{\n  if (a) {{\n    return a.map((x) => x * {n});\n  }}\n"
        "  const d = {{ k: b, n: {n} }};\n  try {{\n    return d.k ?? `n${{d.n}}`;\n"
        "  }} catch (e) {{\n    return null;\n  }}\n}}\n",
    ),
    (
        "typescript",
        "big.ts",
        "export function f{n}(a: number[], b: string | null = null): number[] | string | null {{\n"
        "  if (a.length) {{\n    return a.map((x: number) => x * {n});\n  }}\n  const d: Record<string, unknown> = {{ k: b }};\n"
        "  return (d.k as string) ?? null;\n}}\n\ninterface I{n} {{ id: number; name?: string }}\n\n",
    ),
    (
        "tsx",
        "big.tsx",
        'export function C{n}({{ items }}: {{ items: string[] }}) {{\n  return (\n    <ul className="c{n}">\n'
        "      {{items.map((x) => (\n        <li key={{x}}>{{x}}</li>\n      ))}}\n    </ul>\n  );\n}}\n\n",
    ),
    ("go", "big.go", None),  # needs a package clause first
    (
        "rust",
        "big.rs",
        "pub fn f{n}(a: &[i64], b: Option<&str>) -> Vec<i64> {{\n    if let Some(s) = b {{\n"
        '        println!("{{}}", s);\n    }}\n    a.iter().map(|x| x * {n}).collect()\n}}\n\n'
        "struct S{n} {{ id: u32, name: String }}\n\n",
    ),
    ("java", "Big.java", None),  # needs a class around the methods
    (
        "c",
        "big.c",
        "static int f{n}(const int *a, int n)\n{{\n    int s = 0;\n    for (int i = 0; i < n; i++) {{\n"
        "        s += a[i] * {n};\n    }}\n    return s > 0 ? s : -1;\n}}\n\n",
    ),
    (
        "cpp",
        "big.cpp",
        "template <typename T>\nstd::vector<T> f{n}(const std::vector<T>& a) {{\n  std::vector<T> out;\n"
        "  for (const auto& x : a) {{\n    out.push_back(x * {n});\n  }}\n  return out;\n}}\n\n",
    ),
    ("c_sharp", "Big.cs", None),
    (
        "ruby",
        "big.rb",
        "def f{n}(a, b = nil)\n  return a.map {{ |x| x * {n} }} if a\n  h = {{ k: b, n: {n} }}\n"
        "  begin\n    h.fetch(:k)\n  rescue KeyError\n    nil\n  end\nend\n\n",
    ),
    ("php", "big.php", None),
    (
        "bash",
        "big.sh",
        'f{n}() {{\n  local a="$1"\n  if [ -n "$a" ]; then\n    echo "item {n}: $a"\n  else\n'
        '    for x in 1 2 3; do echo "$x"; done\n  fi\n  return 0\n}}\n\n',
    ),
    (
        "html",
        "big.html",
        '<section id="s{n}" class="item">\n  <h2>Item {n}</h2>\n  <p>Some <em>text</em> for {n}.</p>\n'
        '  <ul>\n    <li><a href="/a/{n}">a</a></li>\n    <li>b</li>\n  </ul>\n  <img src="x.png" alt="x">\n</section>\n',
    ),
    (
        "css",
        "big.css",
        ".item-{n} {{\n  color: #333;\n  margin: 0 auto;\n  padding: 4px 8px;\n}}\n\n"
        ".item-{n}:hover > a {{\n  color: red;\n}}\n\n",
    ),
]
WRAP = {
    "go": (
        'package big\n\nimport "fmt"\n\n',
        "func F{n}(a []int, b *string) []int {{\n\tif b != nil {{\n\t\tfmt.Println(*b)\n\t}}\n"
        "\tout := make([]int, 0, len(a))\n\tfor _, x := range a {{\n\t\tout = append(out, x*{n})\n\t}}\n"
        "\treturn out\n}}\n\n",
        "",
    ),
    "java": (
        "package big;\n\nimport java.util.*;\n\npublic class Big {\n",
        "    static List<Integer> f{n}(List<Integer> a) {{\n        List<Integer> out = new ArrayList<>();\n"
        "        for (int x : a) {{\n            out.add(x * {n});\n        }}\n        return out;\n    }}\n\n",
        "}\n",
    ),
    "c_sharp": (
        "using System.Collections.Generic;\n\nnamespace Big {\npublic static class Big {\n",
        "    public static List<int> F{n}(List<int> a) {{\n        var o = new List<int>();\n"
        "        foreach (var x in a) {{\n            o.Add(x * {n});\n        }}\n"
        "        return o;\n    }}\n\n",
        "}\n}\n",
    ),
    "php": (
        "<?php\n\n",
        "function f{n}(array $a, ?string $b = null): array {{\n    if ($b !== null) {{\n"
        '        echo "item {n}: $b";\n    }}\n    return array_map(fn($x) => $x * {n}, $a);\n}}\n\n',
        "",
    ),
    "json": ("[\n", '  {{"id": {n}, "name": "item {n}", "tags": ["a", "b"], "ok": true, "v": null}},\n', '  {"end": true}\n]\n'),
}


def big_file(language: str, template: str | None, lines: int) -> bytes:
    head, body, tail = WRAP[language] if template is None else ("", template, "")
    parts = [head]
    n = 0
    count = head.count("\n") + tail.count("\n")
    while count < lines:
        chunk = body.format(n=n)
        parts.append(chunk)
        count += chunk.count("\n")
        n += 1
    parts.append(tail)
    return "".join(parts).encode()


def cost(lines: int, repeat: int) -> None:
    from guard.checks import syntax
    from guard.model import Op
    from guard.syntax import languages
    from guard.tree.diffs import make_change

    print(f"{'language':12} {'lines':>6} {'KB':>5} {'load ms':>8} {'keeps ms':>9} {'breaks ms':>10} {'MB/s':>6}")
    for language, name, template in TEMPLATES:
        started = time.perf_counter()
        if not languages.available(language):  # first use: import and load the grammar
            print(f"{language:12} (grammar not installed)")
            continue
        load = (time.perf_counter() - started) * 1000
        before = big_file(language, template, lines)
        assert languages.problem(language, before) is None, (language, languages.problem(language, before))
        text = before.decode()
        mid = text.index("\n", len(text) // 2) + 1
        keep = (text[:mid] + text[mid:].replace("1", "2", 1)).encode()
        broken = (
            text[:mid] + text[mid:].replace(":" if language in ("python", "yaml") else "{", "", 1)
            if language not in ("toml", "json", "bash", "html", "css")
            else text[:mid]
            + {"toml": "x = \n", "json": "{,\n", "bash": "if then\n", "html": '<p class="x>\n', "css": "a { color: red;\n"}[
                language
            ]
            + text[mid:]
        ).encode()
        times = {}
        for label, after in (("keeps", keep), ("breaks", broken)):
            change = make_change(name, Op.MODIFY, before, after)
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                verdict = syntax.judge(change)
                best = min(best, time.perf_counter() - t0)
            assert (verdict is None) == (label == "keeps"), (language, label, verdict)
            times[label] = best * 1000
        mbs = len(before) / 1e6 / (times["keeps"] / 1000)
        nlines = before.count(b"\n")
        print(
            f"{language:12} {nlines:6} {len(before) // 1024:5} {load:8.1f} {times['keeps']:9.1f} "
            f"{times['breaks']:10.1f} {mbs:6.1f}"
        )


def startup() -> None:
    code = (
        "import sys, time; t = time.perf_counter(); import guard.cli.commands, guard.checks, guard.checks.syntax; "
        "print(f'{(time.perf_counter() - t) * 1000:.0f}', "
        "sorted(m for m in sys.modules if m.startswith('tree_sitter')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    ms, loaded = out.split(" ", 1)
    print(f"\nstart-up: importing guard.cli.commands and the checks takes {ms} ms; grammars loaded: {loaded.strip()}")


def false_refusals(files: int, edits: int, seed: int) -> None:
    import lazy_corpus as lc

    from guard.checks import syntax
    from guard.model import Op
    from guard.tree.diffs import make_change

    node = shutil.which("node")
    rng = random.Random(seed)
    counts = {".py": [0, 0, 0], ".js": [0, 0, 0]}  # edits, clean, false refusals
    examples: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        pending: list[tuple[Path, Path, bytes, bytes, str]] = []
        for suffix, source in ((".py", lc.python_files), (".js", lc.js_files)):
            if suffix == ".js" and node is None:
                print("node not found: JavaScript skipped")
                continue
            candidates = list(source())
            rng.shuffle(candidates)
            taken = 0
            for path in candidates:
                if taken >= files:
                    break
                lines = lc.usable(path)
                if lines is None:
                    continue
                taken += 1
                before = ("\n".join(lines) + "\n").encode()
                for k in range(edits):
                    _kind, ops = lc.make_ops(lines, rng, suffix)
                    if not ops:
                        continue
                    new, _spans, _origin = lc.apply_ops(lines, ops)
                    after = ("\n".join(new) + "\n").encode()
                    # node --check reads a .js file as CommonJS and then misses errors
                    # after an `import`: an ES module is checked as .mjs.
                    ext = ".mjs" if suffix == ".js" and ESM.search(before.decode()) else suffix
                    a, b = Path(tmp) / f"{taken}-{k}-a{ext}", Path(tmp) / f"{taken}-{k}-b{ext}"
                    a.write_bytes(before)
                    b.write_bytes(after)
                    pending.append((a, b, before, after, str(path)))
        for a, b, before, after, origin in pending:
            suffix = ".py" if a.suffix == ".py" else ".js"
            counts[suffix][0] += 1
            if not (_clean(a, node) and _clean(b, node)):
                continue
            counts[suffix][1] += 1
            verdict = syntax.judge(make_change("x" + suffix, Op.MODIFY, before, after))
            if verdict is not None:
                counts[suffix][2] += 1
                if len(examples) < 5:
                    examples.append(f"  {origin}: {verdict[0]}")
    print("\nfalse refusals on the lazy corpus's edits (clean = the independent parser accepts both sides):")
    for suffix, (n, clean, false) in counts.items():
        judge = "compile()" if suffix == ".py" else "node --check"
        print(f"  {suffix}: {n} edits, {clean} clean by {judge}, {false} refused by the syntax check")
    print("\n".join(examples))


def _clean(path: Path, node: str | None) -> bool:
    if path.suffix == ".py":
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
        return True
    assert node is not None
    return subprocess.run([node, "--check", str(path)], capture_output=True, timeout=60).returncode == 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", type=int, default=150, help="corpus files per language for the false-refusal count")
    ap.add_argument("--edits", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    cost(args.lines, args.repeat)
    startup()
    false_refusals(args.files, args.edits, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
