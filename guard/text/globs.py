"""Gitignore-style globs over repository-relative paths: the policy's protected paths, the
allow-list, exclusions and the verify commands' `files`.

The compiled patterns are memoised: each is a function of the glob text alone.
"""

from __future__ import annotations

import re

from ..fs.kept import by_value


@by_value(512)
def glob_regex(pattern: str, ignorecase: bool = True) -> re.Pattern[str]:
    """A gitignore-style glob as a compiled regex over repository-relative paths (``glob_source``)."""
    return re.compile(glob_source(pattern), (re.IGNORECASE if ignorecase else 0) | re.DOTALL)


@by_value(512)
def glob_source(pattern: str) -> str:
    """A gitignore-style glob as the text of a regex over repository-relative paths.

    `**/` is any number of folders, `/**` everything inside, a pattern without a slash
    matches a name at any depth, a trailing `/` matches only a folder, and a pattern
    that matches a folder matches everything in it.  Protected globs match ignoring case:
    on a case-insensitive filesystem `.ENV` is `.env`, and protection must not be evaded;
    the allow-list, which lets paths through, follows git's `core.ignorecase`.
    """
    pat = pattern
    anchored = pat.startswith("/")
    pat = pat.lstrip("/")
    folder_only = pat.endswith("/")
    pat = pat.rstrip("/")
    # Without a slash (but for a trailing one) a pattern names a file at any depth.
    out: list[str] = ["" if anchored or "/" in pat else "(?:.*/)?"]
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**/", i) and (i == 0 or pat[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i) and i + 2 == n and (i == 0 or pat[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            while i < n and pat[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pat.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pat[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    tail = "/.*" if folder_only else "(?:/.*)?"
    return "".join(out) + tail


def matches(path: str, pattern: str, ignorecase: bool = True) -> bool:
    try:
        return glob_regex(pattern, ignorecase).fullmatch(path) is not None
    except re.error:  # a bad character class: compare literally
        return path == pattern if not ignorecase else path.casefold() == pattern.casefold()


@by_value(64)
def _any_glob(patterns: tuple[str, ...], ignorecase: bool = True) -> re.Pattern[str] | None:
    """One regex that fully matches a path when one of `patterns` does (None: compare one by one).

    A commit names a thousand paths, and most match none of the policy's globs: one
    match per path instead of one per pattern.
    """
    try:
        return re.compile("|".join(f"(?:{glob_source(p)})" for p in patterns), (re.IGNORECASE if ignorecase else 0) | re.DOTALL)
    except re.error:  # a bad character class somewhere: `matches` compares it literally
        return None


def first_match(paths: tuple[str, ...], patterns: tuple[str, ...], ignorecase: bool = True) -> str | None:
    """The first of `patterns` that one of `paths` matches."""
    combined = _any_glob(patterns, ignorecase) if patterns else None
    if combined is not None and not any(combined.fullmatch(p) for p in paths):
        return None
    for pattern in patterns:
        if any(matches(p, pattern, ignorecase) for p in paths):
            return pattern
    return None
