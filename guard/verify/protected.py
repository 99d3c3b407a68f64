"""Protected contents kept out of what a verify command printed (``guard/files/redaction.py``'s rule).

The checkout leaves out the files agents may not read (``redaction.sealed``), but a command runs
with the user's rights: unconfined it may still read them where the user keeps them (a full path,
``$PWD``, the objects a checkout borrows) and print them in a failure that a finding, the JSON
report and the hook's answer show to the agent.  So before a failing command's output is kept or
shown, every line of a protected file is taken out of it:

- the protected files are those git knows or finds in the user's work tree whose paths
  ``redaction.sealed`` names: tracked (the index's and HEAD's versions too, which a ``git show``
  in the checkout reaches) and not tracked, ignored ones included (``.env``);
- each line of theirs at least ``MIN_CHARS`` long (blanks around it aside), and the value of a
  ``NAME=value`` or ``NAME: value`` line, is replaced wherever it appears in the output by
  ``[a line of PATH: protected, not shown]``.

It is a last line, not a wall: output that spells a secret otherwise (encoded, split, reversed)
goes through.  A sandbox (``sandbox.py``) that hides the work tree keeps the files from being read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from ..policy import Policy
    from ..repo.shadow import Shadow

MIN_CHARS = 6  # a shorter line ("}", "---") is no secret, and would blot out the output
_FILE_BYTES = 1 << 20  # protected files larger than this are not read (keys and .env files are small)
_NEEDLES = 20_000  # lines kept at most, over every protected file
_VALUE = re.compile(rb"^\s*(?:export\s+)?[\w.\-]+\s*[=:]\s*(.*?)\s*$")


def needles(shadow: Shadow, pol: Policy, sealed: Callable[[str], bool]) -> dict[bytes, str]:
    """Each line (and value) of the protected files, with the path it comes from."""
    found: dict[bytes, str] = {}
    for path, data in _contents(shadow, pol, sealed):
        for line in data.splitlines():
            for text in (line.strip(), _value(line)):
                if len(text) >= MIN_CHARS and text not in found and len(found) < _NEEDLES:
                    found[text] = path
    return found


def redact(output: bytes, lines: Mapping[bytes, str]) -> bytes:
    """`output` with every one of `lines` replaced by a note that names its file."""
    if not lines or not output:
        return output
    pattern = re.compile(b"|".join(re.escape(n) for n in sorted(lines, key=len, reverse=True)))
    return pattern.sub(lambda m: f"[a line of {lines[m.group(0)]}: protected, not shown]".encode(), output)


def _value(line: bytes) -> bytes:
    m = _VALUE.match(line)
    return m.group(1).strip(b"'\"") if m else b""


def _contents(shadow: Shadow, pol: Policy, sealed: Callable[[str], bool]) -> Iterable[tuple[str, bytes]]:
    """Every version of each protected file: the work tree's, the index's and HEAD's."""
    from ..tree import worktree

    repo = shadow.repo
    paths = [p for p in shadow.user_files(_pathspecs(pol)) if sealed(p)]
    if not paths:
        return
    staged = repo.index_entries()
    head = repo.head_commit()
    tree = repo.commit_tree(head) if head else None
    for path in paths:
        try:
            data = worktree.read(repo.root, path)[0]
        except (worktree.UnsafePath, OSError):
            data = None
        versions = [data] + [repo.read_blob(e.oid) for e in (staged(path), repo.tree_entry(tree, path)) if e is not None]
        for version in dict.fromkeys(versions):
            if version is not None and len(version) <= _FILE_BYTES:
                yield path, version


def _pathspecs(pol: Policy) -> list[str]:
    """git pathspecs that take in every path the policy's protected globs and own files may name
    (a wider net than the globs: ``sealed`` decides); a glob without a ``/`` names a file at any depth."""
    out: list[str] = []
    for glob in (*pol.protected, *pol.own_files):
        glob = glob.strip("/")
        if not glob or "\0" in glob:
            continue
        out.append(f":(glob,icase){glob}" if "/" in glob else f":(glob,icase)**/{glob}")
    return out or [":(glob)**/.env"]
