"""Which folders a shell command enters, read from its text before it runs.

A hook runs before a command (Claude Code's PreToolUse) in the session's folder; the command
may ``cd`` into a repository from there, or into another one.  ``entered`` says which folders it
enters, so that the hook can take a snapshot in every repository the command can change
(``shell``); a word only the shell can work out (``$(...)``, ``$VAR``, a glob) makes the answer
unknown.  Text in, folders out: nothing here looks at the filesystem.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True, slots=True)
class Entered:
    """The folders a shell command enters (absolute, as the shell resolves them: ``..`` by name),
    in the order it names them, and whether it enters one that cannot be worked out before it runs."""

    folders: tuple[str, ...]
    unknown: bool


_SEPARATORS = frozenset(";&|\n")  # a token of these ends a simple command: &&, ||, |, ;, &, ;;, a newline
_REDIRECTS = frozenset("<>&|")  # a token of these holding < or > redirects: it and the word after it are no argument
_KEYWORDS = frozenset("if then else elif fi do done while until for case esac ! { } time".split())
_WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "env", "sudo"})  # run the command that follows
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_DYNAMIC = frozenset("$`*?[")  # a word the shell expands: the folder it names is known only when the command runs
_DEPTH = 8  # `bash -c` inside `bash -c` ... deeper than this is unknown


def entered(command: str, cwd: str | None, home: str | None = None) -> Entered:
    """The folders `command`, run from `cwd` (None: unknown), enters: ``cd X``, ``pushd X`` and
    ``popd``, ``git -C X`` and ``--work-tree X``, in every simple command (after ``&&``, ``||``,
    ``;``, ``|``, ``&``, a newline, a keyword such as ``then``, a wrapper such as ``env``), in a
    ``( ... )`` subshell (whose ``cd`` ends with it), and in the script of ``bash -c '...'`` (sh,
    dash, zsh and ksh too).

    A word the shell expands (``$(...)``, ``$VAR``, a glob), ``cd -`` or a command that cannot be
    read (an unclosed quote) makes `unknown` true; ``~`` is `home`'s (default: this process's).
    It errs towards more folders, never fewer: a comment is read as commands, a ``cd`` in a
    pipeline as if it were not in a subshell of its own."""
    found: list[str] = []
    unknown = _walk(command, cwd, home if home is not None else os.path.expanduser("~"), found, 0)
    return Entered(tuple(dict.fromkeys(found)), unknown)


def _tokens(command: str) -> list[str] | None:
    lex = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lex.whitespace = " \t\r"  # a newline ends a command: a token of its own
    lex.whitespace_split = True
    lex.commenters = ""  # no comments: their words read as commands (more folders, never fewer)
    try:
        return list(lex)
    except ValueError:
        return None


def _walk(command: str, cwd: str | None, home: str, found: list[str], depth: int) -> bool:
    """Add the folders `command` enters to `found`; whether it enters one that cannot be known."""
    tokens = _tokens(command) if depth < _DEPTH else None
    if tokens is None:
        return True
    unknown = False
    here: str | None = cwd
    outer: list[str | None] = []  # the folder before each open subshell
    pushed: list[str | None] = []  # pushd's stack
    for words, ends in _simple_commands(tokens):
        here, lost = _step(_command_words(words), here, pushed, home, found, depth)
        unknown = unknown or lost
        for ch in ends:
            if ch == "(":
                outer.append(here)
            elif ch == ")" and outer:
                here = outer.pop()
    return unknown


def _simple_commands(tokens: list[str]) -> Iterator[tuple[list[str], str]]:
    """Each simple command's words (a redirection as "<", before its target), and the token that
    ends it: a separator, or a subshell's parenthesis ("" at the end)."""
    words: list[str] = []
    for tok in tokens:
        if set(tok) <= _REDIRECTS and ("<" in tok or ">" in tok):
            words.append("<")
        elif set(tok) <= _SEPARATORS | {"(", ")"}:
            yield words, tok
            words = []
        else:
            words.append(tok)
    yield words, ""


def _step(
    args: list[str], here: str | None, pushed: list[str | None], home: str, found: list[str], depth: int
) -> tuple[str | None, bool]:
    """One simple command (`args`) run in `here`: the folder it leaves the shell in, and whether it
    enters one that cannot be known; the folders it enters are added to `found`."""
    if not args:
        return here, False
    name, rest = os.path.basename(args[0]), args[1:]
    if name in ("cd", "pushd"):
        targets = [w for w in rest if w == "-" or not w.startswith("-")]
        if name == "pushd":
            pushed.append(here)
        here = _resolve(here, targets[0] if targets else (home if name == "cd" else None), home)
        found += [here] if here is not None else []
        return here, here is None
    if name == "popd":
        here = pushed.pop() if pushed else None
        return here, here is None
    if name == "git":
        named, folder = _git_folder(here, rest, home)
        found += [folder] if named and folder is not None else []
        return here, named and folder is None
    script = _script(rest) if name in _SHELLS else None
    return here, script is not None and _walk(script, here, home, found, depth + 1)


def _command_words(words: list[str]) -> list[str]:
    """A simple command's words without redirections and their targets, and without the keywords,
    comment marks, assignments and wrappers (and the wrappers' options) before the command itself."""
    out: list[str] = []
    redirect = False
    for w in words:
        if redirect:
            redirect = False
        elif w == "<":
            redirect = True
        else:
            out.append(w)
    wrapped = False
    while out and (
        out[0] in _KEYWORDS
        or out[0] in _WRAPPERS
        or out[0].startswith("#")  # a comment's words read as a command (see `entered`)
        or _assignment(out[0])
        or (wrapped and out[0].startswith("-"))
    ):
        wrapped = wrapped or out[0] in _WRAPPERS
        out = out[1:]
    return out


def _assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _resolve(here: str | None, target: str | None, home: str) -> str | None:
    """`target` as the shell's `cd` resolves it from `here` (by name); None when it cannot be known."""
    if target is None or target == "-" or any(ch in _DYNAMIC for ch in target):
        return None
    if target == "~" or target.startswith("~/"):
        target = home + target[1:]
    if target.startswith("~"):
        return None  # another user's home
    if not target.startswith("/"):
        if here is None:
            return None
        target = os.path.join(here, target)
    return os.path.normpath(target)


def _git_folder(here: str | None, args: list[str], home: str) -> tuple[bool, str | None]:
    """Whether a git command's options name the folder it works in (``-C X``, ``--work-tree X``), and
    that folder (None: it cannot be known)."""
    folder, named, i = here, False, 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg == "-C" and i + 1 < len(args):
            folder, named = _resolve(folder, args[i + 1], home), True
            if folder is None:
                return True, None
            i += 2
        elif arg == "--work-tree" and i + 1 < len(args):
            return True, _resolve(folder, args[i + 1], home)
        elif arg.startswith("--work-tree="):
            return True, _resolve(folder, arg.split("=", 1)[1], home)
        else:
            i += 2 if arg in ("-c", "--git-dir", "--namespace") else 1
    return named, folder


def _script(args: list[str]) -> str | None:
    """The script a shell runs with `-c` (its options may be grouped: `-ec`), or None."""
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            return None  # a script file: what it enters is not in the command
        if not arg.startswith("--") and "c" in arg[1:]:
            rest = [a for a in args[i + 1 :] if not a.startswith("-")]
            return rest[0] if rest else None
    return None
