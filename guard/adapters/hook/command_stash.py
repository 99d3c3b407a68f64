"""The stash of a command: what the PostToolUse of one command (Bash) needs from its PreToolUse.

The pre hook keeps a ``CommandStash`` in each repository the command can change, with the
file tools' stashes (``stash.folder``), under ``cmd-<name>``: the work tree and the policy
before the command (``shell.Before``), whose turn it is, the command's text, and every
repository it kept one in, so that the post hook finishes them all from whichever it finds
first.  Beside it, in the user's runtime folder, a note of those repositories leads a post
hook that runs outside them (a `cd ..` at the command's end) back to them.

``write`` and ``take`` are the only writer and reader of a stash, ``note`` and ``take_note``
of a note.  Each file says its format (``version``); a file of another version, or one that
is not what its writer writes (not JSON, a field missing, extra or of the wrong type), is
none at all, as when it is not there: without a stash, what the command changed in that
repository is not recorded, and the post hook says so; without a note, the post hook looks
for stashes from its own folder.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...fs.filekind import read_regular
from . import stash

if TYPE_CHECKING:
    from ...pipeline.engine import Guard
    from ...turns.shell import Before

VERSION = 1  # of both files' format: a file of any other is none
_FIELDS = frozenset({"version", "before", "agent", "turn", "command", "repositories"})
_NOTE_FIELDS = frozenset({"version", "repositories"})


@dataclass(frozen=True, slots=True)
class CommandStash:
    """What the pre hook of a command kept in one repository: the work tree and the policy before
    it (`before`), whose turn it is (`turn` None: the post hook's), the command's text, and the
    repositories it kept a stash in (this one among them)."""

    before: Before
    agent: str
    turn: str | None
    command: str
    repositories: tuple[str, ...]


def write(g: Guard, called: str, kept: CommandStash) -> None:
    """Keep `kept` in `g` under the name `called`, whole or not at all; ``shell.Uncarried`` when its
    policy would not come back from the file exactly (nothing is written then)."""
    path = stash.folder(g) / called
    tmp = path.with_name(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(as_json(kept)), encoding="utf-8")
    os.replace(tmp, path)


def take(g: Guard, called: str) -> CommandStash | None:
    """The stash kept in `g` under `called`, taken away; None when there is none, or none this version
    of agent-guard wrote (see the module doc)."""
    path = stash.folder(g) / called
    try:
        doc = json.loads(read_regular(path))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    try:
        return from_json(doc)
    except ValueError:
        return None


def drop(g: Guard, called: str) -> None:
    """Remove the stash `called` from `g`, if there is one (a pre hook that did not finish); never
    raises, so that what the pre hook failed on is what it reports."""
    try:
        (stash.folder(g) / called).unlink(missing_ok=True)
    except OSError:
        pass


def as_json(kept: CommandStash) -> dict[str, object]:
    """The stash as its file holds it; ``shell.Uncarried`` as ``write`` says."""
    return {
        "version": VERSION,
        "before": kept.before.as_json(),
        "agent": kept.agent,
        "turn": kept.turn,
        "command": kept.command,
        "repositories": list(kept.repositories),
    }


def from_json(doc: object) -> CommandStash:
    """The stash a file holds: ``ValueError`` for anything ``as_json`` does not write."""
    from ...turns.shell import Before

    got = _object(doc, _FIELDS)
    turn = None if got["turn"] is None else _text(got["turn"], "turn")
    command = got["command"]
    if not isinstance(command, str):
        raise ValueError("a command stash's command is no string")
    try:
        before = Before.from_json(got["before"])
    except (KeyError, TypeError, AttributeError) as exc:  # a part missing, or of another kind
        raise ValueError(f"a command stash's before is no shell turn's: {exc!r}") from None
    return CommandStash(before, _text(got["agent"], "agent"), turn, command, _roots(got["repositories"]))


# ---------------------------------------------------------------------- the note


def note(called: str, roots: tuple[str, ...]) -> None:
    """Note where the pre hook of the call `called` kept stashes, for its post hook; nothing when the
    runtime folder is not usable (the post hook then looks from its own folder)."""
    path = _note_file(called)
    if path is None:
        return
    try:
        tmp = path.with_name(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": VERSION, "repositories": list(roots)}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def take_note(called: str) -> tuple[str, ...]:
    """The repositories the pre hook of the call `called` noted (``note``), the note taken away; none
    when there is no note, or none this version of agent-guard wrote."""
    path = _note_file(called)
    if path is None:
        return ()
    try:
        doc = json.loads(read_regular(path))
    except (OSError, ValueError):
        return ()
    path.unlink(missing_ok=True)
    try:
        return _roots(_object(doc, _NOTE_FIELDS)["repositories"])
    except ValueError:
        return ()


def _note_file(called: str) -> Path | None:
    """Where the note of the call `called` is kept: the user's runtime folder (the warm server's), when
    it is theirs alone; None when it is not usable."""
    from ...warm import client

    folder = Path(os.fsdecode(client.runtime_dir(os.environb, os.geteuid())))
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    if client.folder_problem(os.fsencode(folder), os.geteuid()) is not None:
        return None
    pending = folder / "pending"
    try:
        pending.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return pending / called


# ---------------------------------------------------------------------- reading the fields


def _object(doc: object, fields: frozenset[str]) -> dict[str, object]:
    """`doc`, an object of this format (``VERSION``) with exactly `fields`; ``ValueError`` otherwise."""
    if not isinstance(doc, dict):
        raise ValueError("a command stash is a JSON object")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        raise ValueError(f"a command stash of format {version!r}, not {VERSION}")
    if frozenset(doc) != fields:
        raise ValueError(f"a command stash's fields are not those of format {VERSION}: {sorted(doc)}")
    return doc


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"a command stash's {what} is {value!r}, not a name")
    return value


def _roots(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError("a command stash's repositories are not a list of folders")
    return tuple(value)
