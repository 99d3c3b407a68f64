"""The languages ast-grep parses: the name its binding takes, what else an agent may call
it, the file extensions it reads as that language, and how a pattern's metavariables are
spelled for its parser.

Facts of ast-grep's language table (``crates/language``, release 0.51): the names and
aliases its command line accepts for ``--lang``, the extensions it gives each language,
and the character that stands for ``$`` in a pattern of a language whose identifiers
cannot hold a ``$`` (``pre_process_pattern``).  An unknown name must never reach the
binding: it aborts with a Rust panic rather than an error.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Language:
    """One language: its name (what the binding takes), aliases, extensions, and `$`'s stand-in."""

    name: str
    aliases: tuple[str, ...]
    extensions: tuple[str, ...]
    expando: str = "$"


LANGUAGES: tuple[Language, ...] = (
    Language("bash", (), ("bash", "bats", "cgi", "command", "env", "fcgi", "ksh", "sh", "tmux", "tool", "zsh")),
    Language("c", (), ("c", "h"), "\U00010000"),
    Language("cpp", ("cc", "c++", "cxx"), ("cc", "hpp", "cpp", "c++", "hh", "cxx", "cu", "ino"), "\U00010000"),
    Language("csharp", ("cs",), ("cs",), "µ"),
    Language("css", (), ("css", "scss"), "_"),
    Language("dart", (), ("dart",)),
    Language("elixir", ("ex",), ("ex", "exs"), "µ"),
    Language("go", ("golang",), ("go",), "µ"),
    Language("haskell", ("hs",), ("hs",), "µ"),
    Language("hcl", (), ("hcl", "nomad", "tf", "tfvars", "workflow"), "µ"),
    Language("html", (), ("html", "htm", "xhtml")),
    Language("java", (), ("java",)),
    Language("javascript", ("js", "jsx"), ("cjs", "js", "mjs", "jsx")),
    Language("json", (), ("json",)),
    Language("kotlin", ("kt",), ("kt", "ktm", "kts"), "µ"),
    Language("lua", (), ("lua",)),
    Language("markdown", ("md",), ("markdown", "md")),
    Language("nix", (), ("nix",), "_"),
    Language("php", (), ("php",), "µ"),
    Language("python", ("py",), ("py", "py3", "pyi", "bzl", "bazel"), "µ"),
    Language("ruby", ("rb",), ("rb", "rbw", "gemspec"), "µ"),
    Language("rust", ("rs",), ("rs",), "µ"),
    Language("scala", (), ("scala", "sc", "sbt")),
    Language("solidity", ("sol",), ("sol",)),
    Language("swift", (), ("swift",), "µ"),
    Language("tsx", (), ("tsx",)),
    Language("typescript", ("ts",), ("ts", "cts", "mts")),
    Language("yaml", ("yml",), ("yaml", "yml")),
)

_BY_NAME = {spelling: lang for lang in LANGUAGES for spelling in (lang.name, *lang.aliases)}
# The first language that lists an extension has it (ast-grep's own rule).
_BY_EXTENSION: dict[str, Language] = {}
for _lang in LANGUAGES:
    for _ext in _lang.extensions:
        _BY_EXTENSION.setdefault(_ext, _lang)

NAMES = ", ".join(lang.name for lang in LANGUAGES)


def named(spelling: str) -> Language | None:
    """The language an agent names (its name or an alias, in any case), or None."""
    return _BY_NAME.get(spelling.strip().lower())


def of_path(path: str) -> Language | None:
    """The language of a file by its extension (the part after the last dot of its name), or None."""
    name = path.rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    return _BY_EXTENSION.get(ext) if dot and stem else None


def pattern_source(pattern: str, lang: Language) -> str:
    """`pattern` as ast-grep hands it to the language's parser: in a language whose identifiers
    cannot hold `$`, each `$` of a metavariable (`$A`, `$$A`, `$$$A`, `$$$`) becomes the
    language's stand-in; any other `$` stays."""
    if lang.expando == "$":
        return pattern
    out: list[str] = []
    dollars = 0
    for c in pattern:
        if c == "$":
            dollars += 1
            continue
        if dollars:
            out.append((lang.expando if ("A" <= c <= "Z" or c == "_" or dollars == 3) else "$") * dollars)
            dollars = 0
        out.append(c)
    if dollars:
        out.append((lang.expando if dollars == 3 else "$") * dollars)
    return "".join(out)
