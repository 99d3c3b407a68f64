"""`GitRepo.remerge`'s speed-up holds itself to libgit2's whole merge, and its result to git's own.

The merge of two parents runs on the files either side changed only (``remerge._merge_two``).
On random histories, made and merged by git (edits, renames, deletions, new files, conflicts
resolved either way, and an edit of the merge's own), that cut-down merge must give, at every
path the check asks about, what libgit2's merge of the whole commits gives; and the paths the
merge changes of its own must be those `git log --remerge-diff` shows, wherever git's merge was
clean.
"""

from __future__ import annotations

import random

import pygit2
import pytest
from conftest import Repo

from guard.repo import GitRepo
from guard.repo.remerge import Scratch, _merge_two


def _text(rng: random.Random, n: int) -> str:
    return "".join(f"line {n} {k} {rng.randrange(1000)}\n" for k in range(12))


def _edit(rng: random.Random, repo: Repo, names: list[str], side: str) -> None:
    for name in rng.sample(names[:4], k=rng.randrange(1, 4)):  # both sides often edit the same files
        path = repo.root / name
        if not path.exists():
            continue
        lines = path.read_text().splitlines(keepends=True)
        for _ in range(rng.randrange(1, 4)):
            lines[rng.randrange(len(lines))] = f"{side} {rng.randrange(1000)}\n"
        path.write_text("".join(lines))
    what = rng.random()
    present = [n for n in names if (repo.root / n).exists()]
    if what < 0.2 and present:
        old = rng.choice(present)
        (repo.root / "moved").mkdir(exist_ok=True)
        repo.git("mv", old, f"moved/{side}-{old.replace('/', '-')}")
    elif what < 0.3 and present:
        repo.git("rm", "-q", "-f", rng.choice(present))
    elif what < 0.4:
        repo.write({f"new/{side}.txt": _text(rng, 99)})
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", side)


def _index_at(index: pygit2.Index, path: str) -> object:
    try:
        entry = index[path]
        return ("file", str(entry.id), int(entry.mode))
    except KeyError:
        pass
    if index.conflicts is not None:
        for sides in index.conflicts:
            if path in {e.path for e in sides if e is not None}:
                return ("conflict", tuple(str(e.id) if e is not None else None for e in sides))
    return None


@pytest.mark.parametrize("seed", range(40))
def test_the_cut_down_merge_is_libgit2s_merge_where_it_is_asked(repo: Repo, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"d{n % 3}/f{n}.txt" for n in range(8)]
    repo.commit({name: _text(rng, i) for i, name in enumerate(names)}, message="base")
    repo.git("checkout", "-q", "-b", "topic")
    _edit(rng, repo, names, "topic")
    repo.git("checkout", "-q", "main")
    _edit(rng, repo, names, "main")
    repo.git("merge", "-q", "--no-ff", "--no-commit", "topic", check=False)
    clean = not repo.git("diff", "--name-only", "--diff-filter=U")  # no path left unmerged
    if not clean:
        repo.git("checkout", rng.choice(["--ours", "--theirs"]), "--", ".", check=False)
        repo.git("add", "-A")
    evil = rng.random() < 0.5
    if evil:
        target = rng.choice([p.relative_to(repo.root).as_posix() for p in repo.root.rglob("*.txt")])
        (repo.root / target).write_text((repo.root / target).read_text() + "# ... existing code ...\n")
        repo.git("add", "-A")
    repo.git("commit", "-q", "--no-edit", "-m", "merge")
    g = GitRepo(repo.root)
    info = g.commit_info(g.resolve("HEAD"))
    own = {c.path: c.new for c in g.files_differing(g.commit_tree(info.parents[0]), info.tree)}
    own = {p: e for p, e in own.items() if g.tree_entry(g.commit_tree(info.parents[1]), p) != e}
    scratch = Scratch(str(g.gitdir), [str(g.commondir / "objects")])
    fast = _merge_two(scratch.handle, info.parents[0], info.parents[1], own, g.files_differing)
    whole = scratch.handle.merge_commits(info.parents[0], info.parents[1])
    for path in own:
        assert _index_at(fast, path) == _index_at(whole, path), (seed, path)
    if clean:
        theirs = {
            line.split(" b/", 1)[1]
            for line in repo.git("log", "-1", "--remerge-diff", "--format=", "-p").splitlines()
            if line.startswith("diff --git")
        }
        ours = {c.path for c in g.remerge(info.parents, own).changes}
        assert ours == theirs, seed
        assert bool(ours) == evil, seed
