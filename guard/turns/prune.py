"""Pruning the ledger: ``gc`` drops each agent's oldest turns and writes the kept ones on a new root."""

from __future__ import annotations

import re
import time

from ..bounds import AGE_SECONDS, KEEP
from ..errors import UsageError
from ..pipeline.engine import Guard
from ..record import clones, ledger
from ..text.wording import plural
from ..tree import worktree
from . import history

_AGE = re.compile(r"^([0-9]+)([smhdw])$")


def _age_seconds(text: str) -> int:
    m = _AGE.match(text.strip())
    if not m:
        raise UsageError(
            f"--older-than takes a whole number and a unit (s, m, h, d, w), from 1s to 100 years "
            f"(36,600d), e.g. 30d; got {text[:40]!r}"
        )
    # Counted only when it can be in range: int() of a 5,000-digit count is refused by Python itself.
    seconds = (
        int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
        if len(m.group(1)) <= 12
        else int(AGE_SECONDS.high) + 1
    )
    if AGE_SECONDS.problem(seconds) is not None:
        raise UsageError(
            f"--older-than {text.strip()[:24]!r}: an age is from 1s to 100 years (36,600d, 5,228w); "
            "to drop every turn, give --keep 0"
        )
    return seconds


def gc(
    g: Guard, agent: str | None, keep: int | None, older_than: str | None, *, include_pushed: bool = False, dry_run: bool = False
) -> str:
    """Prune each agent's oldest turns (beyond `keep`, older than `older_than`); say what went, per agent.

    The kept turns are written again on a root of their own (``ledger.base_message``).  A
    turn that a fetched copy of a ledger holds was pushed (``clones``): this clone's own,
    as it pushed it, or another's that has it.  Those stay, and with them every older one,
    unless `include_pushed` (the next push then replaces the remote's copy with the pruned
    ledger).  `dry_run`: say what would go, change nothing.
    """
    problem = KEEP.problem(keep) if keep is not None else None
    if problem is not None:
        raise UsageError(f"--keep {problem}")
    prefix = g.policy(agent).ledger_prefix
    cutoff = time.time() - _age_seconds(older_than) if older_than else None
    would = "would remove" if dry_run else "removed"
    lines = []
    with worktree.locked(g.repo):
        for name in history.agents(g, prefix, agent):
            ref = ledger.ref_for(g.repo, prefix, name)
            tip = g.repo.ref(ref)
            if tip is None:
                continue
            chain = []  # commits of the ledger, newest first, with their turn (None for sync)
            kept_turns = 0
            cut_at = None
            for info in g.repo.walk(tip):
                t = ledger.parse_turn(g.repo, info.oid, name, g.ledger_memo)
                if t is None or t.kind == "base":
                    break
                if t.kind != "sync":
                    too_many = keep is not None and kept_turns >= keep
                    too_old = cutoff is not None and t.time < cutoff
                    if too_many or too_old:
                        cut_at = info.oid
                        break
                    kept_turns += 1
                chain.append(info)
            if cut_at is None:
                lines.append(f"{name}: nothing to prune ({plural(kept_turns, 'turn')})")
                continue
            dropped = [t.commit for t in ledger.turns(g.repo, ref, name, memo=g.ledger_memo)][kept_turns:]
            refs, pushed = _pushed(g, name, dropped) if not include_pushed else ([], set())
            if pushed:
                them = "it" if len(dropped) == 1 else "them"
                what = (
                    f"the {plural(len(dropped), 'turn')} to prune {'was' if len(dropped) == 1 else 'were'} pushed"
                    if len(pushed) == len(dropped)
                    else f"{len(pushed):,} of the {plural(len(dropped), 'turn')} to prune were pushed"
                )
                lines.append(
                    f"{name}: removed nothing, kept {plural(kept_turns + len(dropped), 'turn')}: {what} "
                    f"({', '.join(refs)} {'holds' if len(refs) == 1 else 'hold'} {them}); agent-guard gc "
                    f"--include-pushed removes {them} too, and the next agent-guard push replaces the "
                    "remote's copy"
                )
                continue
            if dry_run:
                pass
            elif not chain:
                g.repo.update_ref(ref, None, tip, "agent-guard: gc")
            else:
                oldest = chain[-1]
                base_tree = g.repo.commit_tree(oldest.parents[0]) if oldest.parents else g.repo.commit_tree(oldest.oid)
                parent = g.repo.write_commit(base_tree, [], ledger.base_message(name))
                for info in reversed(chain):
                    parent = g.repo.write_commit(info.tree, [parent], info.message)
                g.repo.update_ref(ref, parent, tip, "agent-guard: gc")
            gone = f"every turn ({len(dropped):,})" if not kept_turns else plural(len(dropped), "turn")
            lines.append(f"{name}: {would} {gone}" + (f", kept {plural(kept_turns, 'turn')}" if kept_turns else ""))
    return "\n".join(lines)


def _pushed(g: Guard, agent: str, commits: list[str]) -> tuple[list[str], set[str]]:
    """Which of `commits` (the agent's turns) fetched copies hold: (those copies' refs, the commits)."""
    wanted, held, refs = set(commits), set(), []
    for copy in clones.copies(g.repo, agent):
        has = {t.commit for t in ledger.turns(g.repo, copy.ref, agent, memo=g.ledger_memo)} & wanted
        if has:
            refs.append(copy.ref)
            held |= has
    return refs, held
