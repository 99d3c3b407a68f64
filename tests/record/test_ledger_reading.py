"""Reading the ledger as far as a command asks gives what reading all of it gives.

Three speed-ups, each held against the plain way: rolled-back state decided newest
first (``history._Rolled``) against the oldest-first replay of every rollback; the
turn-id index beside the ref (``ledger.commits_of``) against a walk of the whole
ledger, through amends, rollbacks, a gc, a ref moved back and a damaged index file;
``log --limit N`` against the first N of the whole log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Repo
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.errors import UsageError
from guard.pipeline.engine import Guard
from guard.record import ledger
from guard.turns import history, prune, rollback


def _replayed(newest_first: list[ledger.Turn]) -> dict[str, bool]:
    """Turn id -> rolled back, every rollback replayed oldest first (the plain way)."""
    rolled: dict[str, bool] = {}
    by_id = {t.id: t for t in newest_first}
    for t in reversed(newest_first):
        rolled.setdefault(t.id, False)
        if t.kind == "rollback":
            for target in t.rolls_back:
                rolled[target] = True
                tt = by_id.get(target)
                if tt is not None and tt.kind == "rollback":
                    for inner in tt.rolls_back:
                        rolled[inner] = False
    return rolled


def _turn(number: int, kind: str, rolls_back: tuple[str, ...] = ()) -> ledger.Turn:
    return ledger.Turn(
        commit=f"{number:040x}",
        parent=None,
        agent="agent",
        id=str(number),
        kind=kind,
        time=number,
        format="",
        files=(),
        repairs=(),
        policy="",
        rolls_back=rolls_back,
    )


@st.composite
def _ledgers(draw: st.DrawFn) -> list[ledger.Turn]:
    """Turns oldest first, with unique ids; each rollback names earlier turns (rollbacks too), in any order."""
    out: list[ledger.Turn] = []
    for n in range(1, draw(st.integers(1, 30)) + 1):
        if out and draw(st.booleans()):
            named = draw(st.lists(st.sampled_from([t.id for t in out]), min_size=1, max_size=4, unique=True))
            out.append(_turn(n, "rollback", tuple(named)))
        else:
            out.append(_turn(n, "turn"))
    return out


@settings(max_examples=500, deadline=None)
@given(_ledgers())
def test_rolled_state_newest_first_is_the_replay(oldest_first: list[ledger.Turn]) -> None:
    newest_first = oldest_first[::-1]
    expected = _replayed(newest_first)
    rolled = history._Rolled()
    assert [rolled.see(t) for t in newest_first] == [expected[t.id] for t in newest_first]


def _edit(old: str, new: str) -> str:
    return json.dumps({"file_path": "a.txt", "old_string": old, "new_string": new})


def _walked(g: Guard, ref: str, turn_id: str) -> tuple[str, ...]:
    return tuple(t.commit for t in reversed(list(ledger.turns(g.repo, ref, "agent"))) if t.id == turn_id)


def _index_agrees(g: Guard, ref: str) -> None:
    ids = {t.id for t in ledger.turns(g.repo, ref, "agent")} | {"never-used", "999"}
    for turn_id in sorted(ids):
        want = _walked(g, ref, turn_id)
        assert ledger.commits_of(g.repo, ref, "agent", turn_id) == want, turn_id  # the file beside the ref
        assert ledger.commits_of(g.repo, ref, "agent", turn_id, g.ledger_memo) == want, turn_id  # the session's


def test_turn_id_index_follows_the_ledger(repo: Repo) -> None:
    repo.commit({"a.txt": "v0\n"})
    g = Guard(repo.root)
    ref = "refs/agent-guard/agent"
    index = repo.root / ".git" / "agent-guard" / "turn-ids" / ref
    steps = [
        lambda: g.apply(_edit("v0", "v1")),
        lambda: g.apply(_edit("v1", "v2"), turn="fix-login"),
        lambda: g.apply(_edit("v2", "v3"), turn="fix-login"),  # the same turn goes on: its commit is replaced
        lambda: rollback.rollback(g, None),
        lambda: g.apply(_edit("v1", "v4"), turn="p1a2b3c4"),
        lambda: rollback.rollback(g, None, rollback.Asked(turn="p1a2b3c4")),
        lambda: rollback.rollback(g, None),  # a rollback of the rollback
        lambda: repo.write({"a.txt": "user\n"}),  # the next turn starts with a sync commit
        lambda: g.apply(_edit("user", "v5"), turn="after-sync"),
    ]
    for step in steps:
        step()
        _index_agrees(g, ref)
    # A ref moved back by hand, then on again: the index is cut, then grows.
    tip = repo.git("rev-parse", ref).strip()
    older = repo.git("rev-parse", f"{ref}~3").strip()
    repo.git("update-ref", ref, older)
    _index_agrees(g, ref)
    repo.git("update-ref", ref, tip)
    _index_agrees(g, ref)
    # A damaged file is read again from the ledger; a missing one too.
    index.write_text("not an index\n")
    assert ledger.commits_of(g.repo, ref, "agent", "fix-login") == _walked(g, ref, "fix-login")
    index.unlink()
    assert ledger.commits_of(g.repo, ref, "agent", "p1a2b3c4") == _walked(g, ref, "p1a2b3c4")
    # gc writes every commit anew.
    prune.gc(g, None, 3, None)
    _index_agrees(g, ref)
    assert Path(index).read_text().count("\n") == 3


def test_log_limit_is_the_head_of_the_whole_log(repo: Repo) -> None:
    repo.commit({"a.txt": "v0\n", "b.txt": "w0\n"})
    g = Guard(repo.root)
    for n in range(1, 5):
        g.apply(_edit(f"v{n - 1}", f"v{n}"), agent="one")
        g.apply(json.dumps({"file_path": "b.txt", "old_string": f"w{n - 1}", "new_string": f"w{n}"}), agent="two")
        if n % 2:
            rollback.rollback(g, "one")
            rollback.rollback(g, "one")
    whole = history.log(g, None)
    for limit in (1, 2, 5, len(whole), len(whole) + 3):
        assert history.log(g, None, history.Listing(limit)) == whole[:limit], limit
        assert history.log(g, "one", history.Listing(limit), True) == history.log(g, "one", patch=True)[:limit], limit
    for limit in (0, -2, 10**30):  # no count of turns to list (-2 once listed all but two; 10**30 crashed)
        with pytest.raises(UsageError, match="from 1 to 1,000,000,000"):
            history.log(g, None, history.Listing(limit))
