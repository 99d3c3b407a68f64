"""Turns that travel (issue 24 s.4): clones push and fetch their ledgers through a real bare remote.

Two clones of one remote, `alpha` and `beta`, both record turns of agent `claude`. Every
git command here is a child with a timeout (``conftest.git``); agent-guard runs in-process,
and its own `git push`/`git fetch` get `--timeout`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, Result, checkout_env, git, run_cli

BASE = {
    "f.txt": "".join(f"line {i}\n" for i in range(1, 21)),
    "g.txt": "one\ntwo\nthree\n",
    "deploy/prod.yml": "replicas: 1\n",
    ".gitattributes": "*.txt text\n",
}
TIMEOUT = ("--timeout", "60")


class Clone(Repo):
    """A clone of the team's remote (made by `git clone`, not `git init`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def ag(self, *args: str, input: str | None = None) -> Result:
        return run_cli(self.root, *args, input=input)

    def edit(self, path: str, old: str, new: str, *extra: str) -> dict[str, object]:
        r = self.ag(
            "apply",
            "--agent",
            "claude",
            "--json",
            *extra,
            input=json.dumps({"file_path": path, "old_string": old, "new_string": new}),
        )
        assert r.code == 0, r
        return r.json()

    def push(self, *extra: str) -> Result:
        r = self.ag("push", *TIMEOUT, *extra)
        assert r.code == 0, r
        return r

    def fetch(self) -> Result:
        r = self.ag("fetch", *TIMEOUT)
        assert r.code == 0, r
        return r

    def log(self, *extra: str) -> list[dict[str, object]]:
        r = self.ag("log", "--json", *extra)
        assert r.code == 0, r
        turns: list[dict[str, object]] = r.json()["turns"]  # type: ignore[assignment]
        return turns

    def tip(self, ref: str) -> str:
        return self.git("rev-parse", "--verify", "-q", ref, check=False).strip()


class Team:
    def __init__(self, tmp_path: Path) -> None:
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(self.remote))
        seed = Repo(tmp_path / "seed")
        seed.commit(BASE, "base")
        seed.git("push", "-q", str(self.remote), "main")
        self.a = self.clone(tmp_path, "a", "alpha")
        self.b = self.clone(tmp_path, "b", "beta")

    def clone(self, tmp_path: Path, folder: str, name: str | None) -> Clone:
        git(tmp_path, "clone", "-q", str(self.remote), folder)
        c = Clone(tmp_path / folder)
        if name is not None:
            c.git("config", "agent-guard.clone", name)
        return c

    def remote_refs(self) -> dict[str, str]:
        out = git(self.remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/agent-guard-clones/")
        return dict(line.split(" ") for line in out.splitlines())


@pytest.fixture
def team(tmp_path: Path) -> Team:
    (tmp_path / "seed").mkdir()
    return Team(tmp_path)


# ---------------------------------------------------------------------- push and fetch


def test_two_clones_push_turns_of_one_agent_side_by_side(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    b.edit("g.txt", "two\n", "BETA two\n")
    out = a.push().stdout
    assert out.splitlines()[0] == "git push --porcelain origin '+refs/agent-guard/*:refs/agent-guard-clones/alpha/*'"
    assert "claude: 1 turn pushed, as refs/agent-guard-clones/alpha/claude" in out
    b.push()
    a.edit("f.txt", "line 9\n", "ALPHA 9\n")
    a.push()
    b.edit("g.txt", "three\n", "BETA three\n")
    branches = b.git("for-each-ref", "refs/heads", "refs/remotes") + b.tip("HEAD")
    index = (b.root / ".git" / "index").read_bytes()
    b.push()
    # Each clone's ledger of claude is on the remote, neither replaced by the other's.
    assert team.remote_refs() == {
        "refs/agent-guard-clones/alpha/claude": a.tip("refs/agent-guard/claude"),
        "refs/agent-guard-clones/beta/claude": b.tip("refs/agent-guard/claude"),
    }
    # Each push is recorded in the clone that made it, as a fetch would bring it back.
    assert a.tip("refs/agent-guard-remotes/origin/alpha/claude") == a.tip("refs/agent-guard/claude")
    got = b.fetch()
    assert got.stdout.splitlines()[0] == "git fetch origin '+refs/agent-guard-clones/*:refs/agent-guard-remotes/origin/*'"
    assert "claude (clone alpha): 2 turns in refs/agent-guard-remotes/origin/alpha/claude" in got.stdout
    assert b.tip("refs/agent-guard-remotes/origin/alpha/claude") == a.tip("refs/agent-guard/claude")
    # B's own ledger, HEAD, the branches and the index never move on a push or a fetch.
    assert [t["id"] for t in b.log("--local")] == ["2", "1"]
    assert b.git("for-each-ref", "refs/heads", "refs/remotes") + b.tip("HEAD") == branches
    assert (b.root / ".git" / "index").read_bytes() == index


def test_the_documented_refspecs_work_with_plain_git(team: Team) -> None:
    """No agent-guard on the other side: `git push`/`git fetch` with the printed refspecs do it all."""
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    shown = a.ag("push", "--print").stdout.strip()
    assert shown == "git push --porcelain origin '+refs/agent-guard/*:refs/agent-guard-clones/alpha/*'"
    assert team.remote_refs() == {}  # --print runs nothing
    a.git("push", "-q", "origin", "+refs/agent-guard/*:refs/agent-guard-clones/alpha/*")
    b.git("fetch", "-q", "origin", "+refs/agent-guard-clones/*:refs/agent-guard-remotes/origin/*")
    (turn,) = b.log()
    assert (turn["agent"], turn["clone"], turn["id"]) == ("claude", "alpha", "1")


def test_every_turn_names_the_clone_it_was_recorded_in(team: Team) -> None:
    commit = team.a.edit("f.txt", "line 2\n", "ALPHA 2\n")["turn"]["commit"]  # type: ignore[index]
    message = team.a.git("log", "-1", "--format=%B", commit)
    assert "Agent-Guard-Clone: alpha\n" in message


def test_a_clone_s_made_name_is_stable_readable_and_its_own(team: Team, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.record import clones
    from guard.repo import GitRepo

    c = team.clone(tmp_path, "c", None)
    d = team.clone(tmp_path, "d", None)
    monkeypatch.setattr(clones, "_host", lambda: "box7")
    first = clones.name(GitRepo(c.root))
    assert first.startswith("box7-") and len(first) == len("box7-") + 6
    assert clones.name(GitRepo(c.root)) == first  # kept in the git dir
    assert (c.root / ".git" / "agent-guard" / "clone.box7").read_text() == first + "\n"
    assert clones.name(GitRepo(d.root)) != first  # another clone, on the same host
    # The git dir copied to another host (a container image, say): a name of its own there.
    monkeypatch.setattr(clones, "_host", lambda: "box8")
    moved = clones.name(GitRepo(c.root))
    assert moved.startswith("box8-") and clones.name(GitRepo(c.root)) == moved
    # A kept name that is no name, or no regular file, is made again, and never waited on.
    kept = c.root / ".git" / "agent-guard" / "clone.box8"
    for planted in ("not a name\n", "", "fifo"):
        kept.unlink()
        if planted == "fifo":
            os.mkfifo(kept)
        else:
            kept.write_text(planted)
        again = clones.name(GitRepo(c.root))
        assert again.startswith("box8-") and again != moved and kept.read_text() == again + "\n", planted
        assert clones.name(GitRepo(c.root)) == again
    # Back on the first host, the name it had there.
    monkeypatch.setattr(clones, "_host", lambda: "box7")
    assert clones.name(GitRepo(c.root)) == first
    # Configured, it is what the user says.
    c.git("config", "agent-guard.clone", "ci-runner-3")
    assert clones.name(GitRepo(c.root)) == "ci-runner-3"


def test_clones_started_at_once_agree_on_the_made_name(team: Team, tmp_path: Path) -> None:
    c = team.clone(tmp_path, "c", None)
    code = "from guard.record import clones; from guard.repo import GitRepo; print(clones.name(GitRepo('.')))"
    children = [
        subprocess.Popen([sys.executable, "-c", code], cwd=c.root, stdout=subprocess.PIPE, env=checkout_env()) for _ in range(8)
    ]
    names = {child.communicate(timeout=60)[0].decode().strip() for child in children}
    assert len(names) == 1, names
    (kept,) = (c.root / ".git" / "agent-guard").iterdir()  # no temporary file left
    assert kept.name.startswith("clone.") and kept.read_text() == names.pop() + "\n"


def test_a_made_name_is_a_ref_name_whatever_the_host_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.record import clones, ledger

    class Uname:
        def __init__(self, node: str) -> None:
            self.nodename = node

    for node, want in (
        ("dev box.example.com", "dev-box"),
        ("..lock", "clone"),
        ("", "clone"),
        ("é", "clone"),
        ("x" * 80, "x" * 40),
        ("-a-", "a"),
    ):
        monkeypatch.setattr(os, "uname", lambda node=node: Uname(node))
        assert clones._host() == want, node
        assert ledger.agent_problem(want + "-abcdef") is None


def test_a_clone_name_that_is_no_ref_name_is_refused_before_anything_is_written(team: Team) -> None:
    a = team.a
    a.git("config", "agent-guard.clone", "two words")
    snap = a.snapshot()
    r = a.ag(
        "apply", "--agent", "claude", input=json.dumps({"file_path": "f.txt", "old_string": "line 2\n", "new_string": "X\n"})
    )
    assert r.code == 2 and "agent-guard.clone" in r.stderr and "' '" in r.stderr, r
    assert a.snapshot() == snap


def test_push_and_fetch_refuse_what_is_not_a_remote_or_a_prefix_that_overlaps(team: Team) -> None:
    a = team.a
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    snap = a.snapshot()
    for args in (("push", "nowhere"), ("fetch", "nowhere"), ("push", str(team.remote))):
        r = a.ag(*args, *TIMEOUT)
        assert r.code == 2 and "is not a remote of this repository" in r.stderr, (args, r)
    for bad in ("0", "-1", "nan", "1e30", ""):
        r = a.ag("push", "--timeout", bad)
        assert r.code == 2 and "--timeout" in r.stderr, (bad, r)
    a.write({".agent-guard.yaml": "ledger:\n  ref_prefix: refs/agent-guard-remotes/mine/\n"})
    snap = a.snapshot()
    for command in ("push", "fetch"):
        r = a.ag(command, *TIMEOUT)
        assert r.code == 2 and "overlaps refs/agent-guard-remotes/" in r.stderr, r
    assert a.snapshot() == snap and team.remote_refs() == {}


def test_a_push_the_remote_refuses_says_so_and_records_nothing(team: Team) -> None:
    a = team.a
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'no turns here' >&2\nexit 1\n")
    hook.chmod(0o755)
    r = a.ag("push", *TIMEOUT)
    assert r.code == 1 and "no turns here" in r.stderr and "not pushed" in r.stdout, r
    assert a.tip("refs/agent-guard-remotes/origin/alpha/claude") == ""


def test_a_continued_turn_pushes_again_and_replaces_its_copy(team: Team) -> None:
    """A turn continued under its id replaces its commit; the forced refspec carries that."""
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n", "--turn", "t1")
    a.push()
    second = a.edit("g.txt", "two\n", "ALPHA two\n", "--turn", "t1")["turn"]["commit"]  # type: ignore[index]
    a.push()
    assert team.remote_refs()["refs/agent-guard-clones/alpha/claude"] == second
    b.fetch()
    (turn,) = b.log()
    assert turn["commit"] == second and [f["path"] for f in turn["files"]] == ["f.txt", "g.txt"]  # type: ignore[index]


def test_a_fetch_warns_when_another_clone_pushes_under_this_clone_s_name(team: Team, tmp_path: Path) -> None:
    a = team.a
    twin = team.clone(tmp_path, "twin", "alpha")  # a copied configuration: two clones named alpha
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.push()
    assert "warning" not in a.fetch().stdout
    twin.edit("g.txt", "two\n", "TWIN two\n")
    twin.push()
    out = a.fetch().stdout
    assert "warning: refs/agent-guard-clones/alpha/claude on origin is not what this clone last pushed" in out, out
    assert "git config agent-guard.clone NAME" in out


# ---------------------------------------------------------------------- log


def test_log_in_b_names_the_turns_of_a(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.edit("f.txt", "line 4\n", "ALPHA 4\n")
    a.push()
    b.edit("g.txt", "two\n", "BETA two\n")
    b.fetch()
    everything = b.log()
    assert sorted((t["clone"], t["id"]) for t in everything) == [("alpha", "1"), ("alpha", "2"), ("beta", "1")]
    fetched = [t for t in everything if t["clone"] == "alpha"]
    assert all(t["ref"] == "refs/agent-guard-remotes/origin/alpha/claude" and t["agent"] == "claude" for t in fetched)
    (own,) = [t for t in everything if t["clone"] == "beta"]
    assert own["ref"] == "refs/agent-guard/claude"
    assert [(t["clone"], t["id"]) for t in b.log("--clone", "alpha")] == [("alpha", "2"), ("alpha", "1")]
    assert [(t["clone"], t["id"]) for t in b.log("--local")] == [("beta", "1")]
    assert [(t["clone"], t["id"]) for t in b.log("--clone", "beta")] == [("beta", "1")]
    text = b.ag("log").stdout
    assert "claude@alpha turn 2" in text and "claude@alpha turn 1" in text and "\nclaude turn 1" in "\n" + text
    # A's own copy of what it pushed is not listed twice in A.
    a.fetch()
    assert [t["id"] for t in a.log()] == ["2", "1"]
    r = b.ag("log", "--clone", "gamma")
    assert r.code == 2 and "fetched: claude@alpha" in r.stderr and "this clone is beta" in r.stderr, r
    r = b.ag("log", "--clone", "alpha", "--local")
    assert r.code == 2, r


def test_a_clone_s_turns_fetched_through_two_remotes_are_listed_once(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.push()
    b.git("remote", "add", "mirror", str(team.remote))
    b.fetch()
    assert b.ag("fetch", "mirror", *TIMEOUT).code == 0
    assert b.tip("refs/agent-guard-remotes/mirror/alpha/claude") == a.tip("refs/agent-guard/claude")
    assert [(t["clone"], t["id"]) for t in b.log()] == [("alpha", "1")]


# ---------------------------------------------------------------------- rollback of a fetched turn


def _pulled(team: Team) -> tuple[Clone, str]:
    """A's turn on f.txt, committed and pushed with the branch; B pulls it and makes a turn of its own."""
    a, b = team.a, team.b
    turn = a.edit("f.txt", "line 2\n", "ALPHA 2\n")["turn"]  # type: ignore[index]
    a.git("commit", "-q", "-am", "alpha's work")
    a.git("push", "-q", "origin", "main")
    a.push()
    b.git("pull", "-q", "--ff-only", "origin", "main")
    b.edit("f.txt", "line 15\n", "BETA 15\n")
    b.fetch()
    return b, str(turn["commit"])


def test_b_rolls_back_a_turn_fetched_from_a(team: Team) -> None:
    b, commit = _pulled(team)
    head, index = b.tip("HEAD"), (b.root / ".git" / "index").read_bytes()
    branches = b.git("for-each-ref", "refs/heads", "refs/remotes")
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", "1", "--json")
    assert r.code == 0, r
    got = r.json()
    assert got["status"] == "applied" and got["rolls_back"] == []
    assert got["rolls_back_from"] == {"clone": "alpha", "id": "1", "commit": commit}
    # A's change is undone here; B's own later turn in the same file stays.
    assert (b.root / "f.txt").read_text() == BASE["f.txt"].replace("line 15\n", "BETA 15\n")
    # Recorded as a rollback of B's own ledger, naming A's turn.
    turn = got["turn"]
    assert turn["ref"] == "refs/agent-guard/claude" and turn["id"] == "2"
    message = b.git("log", "-1", "--format=%B", turn["commit"])
    for line in (
        "Agent-Guard-Kind: rollback",
        "Agent-Guard-Clone: beta",
        "Agent-Guard-Rolls-Back-Clone: alpha",
        "Agent-Guard-Rolls-Back-Turn: 1",
        f"Agent-Guard-Rolls-Back-Commit: {commit}",
    ):
        assert line + "\n" in message, message
    assert "Agent-Guard-Rolls-Back:" not in message  # no id of B's own turns
    assert "-ALPHA 2\n+line 2\n" in b.git("diff", f"{turn['commit']}^", turn["commit"])
    # HEAD, the branches and the user's index never move.
    assert b.tip("HEAD") == head and (b.root / ".git" / "index").read_bytes() == index
    assert b.git("for-each-ref", "refs/heads", "refs/remotes") == branches
    # log shows A's turn rolled back here, and B's rollback naming it.
    rows = {(t["clone"], t["id"]): t for t in b.log()}
    assert rows[("alpha", "1")]["rolled_back"] is True and rows[("alpha", "1")]["rolled_back_here"] is True
    assert rows[("beta", "1")]["rolled_back"] is False
    assert rows[("beta", "2")]["rolls_back_from"] == got["rolls_back_from"]
    text = b.ag("log").stdout
    assert "claude@alpha turn 1" in text and "(rolled back here)" in text
    assert f"rollback of claude@alpha turn 1 ({commit[:12]})" in text
    # Not twice; undoing the rollback brings A's change back, and the log says it is live again.
    snap = b.snapshot()
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", "1")
    assert r.code == 2 and "already rolled back here, by rollback 2" in r.stderr, r
    assert b.snapshot() == snap
    assert b.ag("rollback", "--agent", "claude", "--turn", "2").code == 0
    assert "ALPHA 2\n" in (b.root / "f.txt").read_text()
    rows = {(t["clone"], t["id"]): t for t in b.log()}
    assert rows[("alpha", "1")]["rolled_back"] is False


def test_processes_racing_to_undo_one_fetched_turn_undo_it_once(team: Team) -> None:
    b, _commit = _pulled(team)
    args = [sys.executable, "-m", "guard", "rollback", "--agent", "claude", "--clone", "alpha", "--turn", "1"]
    racers = [
        subprocess.Popen(args, cwd=b.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=checkout_env()) for _ in range(4)
    ]
    results = []
    for racer in racers:
        err = racer.communicate(timeout=120)[1].decode()
        results.append((racer.returncode, err))
    assert sorted(code for code, _err in results) == [0, 2, 2, 2], results
    assert all("already rolled back here" in err for code, err in results if code == 2), results
    assert (b.root / "f.txt").read_text() == BASE["f.txt"].replace("line 15\n", "BETA 15\n")
    assert [t["kind"] for t in b.log("--local")] == ["rollback", "turn"]


def test_a_fetched_turn_rolled_back_by_commit_where_the_change_was_made_in_both(team: Team) -> None:
    """B never pulled: the same change was made in B by hand. --commit names A's turn, --agent is taken from it."""
    a, b = team.a, team.b
    commit = str(a.edit("g.txt", "two\n", "TWO\n")["turn"]["commit"])  # type: ignore[index]
    a.push()
    b.write({"g.txt": "one\nTWO\nthree\nfour\n"})
    b.fetch()
    r = b.ag("rollback", "--commit", commit[:10], "--json")
    assert r.code == 0, r
    assert (b.root / "g.txt").read_text() == "one\ntwo\nthree\nfour\n"
    assert r.json()["turn"]["ref"] == "refs/agent-guard/claude"
    # In A, its own turn is untouched.
    assert (a.root / "g.txt").read_text() == "one\nTWO\nthree\n"


def test_a_fetched_turn_whose_change_is_not_here_has_nothing_to_undo(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("g.txt", "two\n", "TWO\n")
    a.push()
    b.fetch()
    snap = b.snapshot()
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", "1", "--json")
    assert r.code == 0 and "nothing left to undo" in " ".join(r.json()["notes"]), r
    assert b.snapshot() == snap


def _never_here(team: Team) -> Clone:
    """A's turns 1-4 (line 2, then line 3 next to it; a file made, then changed), pushed as turns only:
    B fetches them and never pulls, so none of A's changes is in B's tree."""
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.edit("f.txt", "line 3\n", "ALPHA 3\n")
    r = a.ag("apply", "--agent", "claude", input=json.dumps({"file_path": "made.txt", "content": "alpha made\n"}))
    assert r.code == 0, r
    a.edit("made.txt", "alpha made\n", "alpha made, then changed\n")
    a.push()
    b.edit("g.txt", "two\n", "BETA two\n")  # B's own turn: its tree is its own
    b.fetch()
    return b


@pytest.mark.parametrize("turn", ["2", "4"])
@pytest.mark.parametrize("force", [(), ("--force",)])
def test_a_fetched_turn_this_clone_never_had_has_nothing_to_undo(team: Team, turn: str, force: tuple[str, ...]) -> None:
    """Turn 2's before-state holds A's turn 1 (ALPHA 2, next to the line turn 2 changed), turn 4's a file
    B never had: a three-way undo in B's tree conflicted, and --force wrote A's before-state there."""
    b = _never_here(team)
    snap = b.snapshot()
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", turn, "--json", *force)
    assert r.code == 0, r
    assert r.json()["files"] == [] and "nothing left to undo" in " ".join(r.json()["notes"]), r
    assert b.snapshot() == snap
    assert not (b.root / "made.txt").exists() and "ALPHA" not in (b.root / "f.txt").read_text()


def test_a_fetched_turn_is_undone_where_its_change_came_and_nowhere_else(team: Team) -> None:
    """One turn of A's changes g.txt (committed and pulled by B), made.txt (A's turn 1 made it, B never had
    it) and deletes gone.txt (made by A's turn 1 too): only g.txt is B's to undo, --force or not."""
    a, b = team.a, team.b
    made = {"file_path": "made.txt", "content": "alpha made\n"}
    assert a.ag("apply", "--agent", "claude", input=json.dumps(made)).code == 0
    gone = {"file_path": "gone.txt", "content": "alpha's, deleted next\n"}
    assert a.ag("apply", "--agent", "claude", input=json.dumps(gone)).code == 0
    patch = (
        "*** Begin Patch\n*** Update File: g.txt\n@@\n one\n-two\n+ALPHA two\n three\n"
        "*** Update File: made.txt\n@@\n-alpha made\n+alpha made, then changed\n"
        "*** Delete File: gone.txt\n*** End Patch\n"
    )
    r = a.ag("apply", "--agent", "claude", "--json", input=patch)
    assert r.code == 0, r
    a.git("commit", "-q", "-m", "alpha's g.txt", "g.txt")
    a.git("push", "-q", "origin", "main")
    a.push()
    b.git("pull", "-q", "--ff-only", "origin", "main")
    b.fetch()
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", "3", "--force", "--json")
    assert r.code == 0, r
    assert [f["path"] for f in r.json()["files"]] == ["g.txt"], r
    assert "left gone.txt, made.txt as they are" in " ".join(r.json()["notes"]), r
    assert (b.root / "g.txt").read_text() == BASE["g.txt"]
    assert not (b.root / "made.txt").exists() and not (b.root / "gone.txt").exists()


def test_refusals_of_a_fetched_turn_s_rollback_leave_the_tree_as_it_was(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.edit("deploy/prod.yml", "replicas: 1\n", "replicas: 9\n")
    # A's user lets agents edit .gitattributes there (a policy of A's own, never committed).
    a.write({".agent-guard.yaml": "paths:\n  control_editable: ['.gitattributes']\n"})
    a.edit(".gitattributes", "*.txt text\n", "*.txt -text\n")
    a.git("commit", "-q", "-am", "alpha's work")
    a.git("push", "-q", "origin", "main")
    a.push()
    b.git("pull", "-q", "--ff-only", "origin", "main")
    b.fetch()
    # A later change over A's line: rollback-conflict, and --force is needed.
    b.write({"f.txt": (b.root / "f.txt").read_text().replace("ALPHA 2\n", "USER 2\n")})
    # The user protects deploy/** here since: path-protected, --force or not.
    b.write({".agent-guard.yaml": "paths:\n  protected_extra: ['deploy/**']\n"})
    snap = b.snapshot()
    cases = [
        (("--clone", "alpha", "--turn", "1"), 1, "rollback-conflict"),
        (("--clone", "alpha", "--turn", "2"), 1, "path-protected"),
        (("--clone", "alpha", "--turn", "2", "--force"), 1, "path-protected"),
        (("--clone", "alpha", "--turn", "3"), 1, "control_editable"),
        (("--clone", "alpha", "--turn", "3", "--force"), 1, "control_editable"),
        (("--clone", "alpha", "--turn", "7"), 2, "clone alpha has no turn '7' of claude here"),
        (("--clone", "gamma", "--turn", "1"), 2, "fetched: claude@alpha"),
        (("--clone", "alpha"), 2, "--clone alpha --turn ID"),
        (("--clone", "alpha", "--to", "1"), 2, "--to undoes this clone's turns"),
        (("--clone", "alpha", "--turn", "a b"), 2, "invalid turn id"),
        (("--clone", "bad/name", "--turn", "1"), 2, "invalid clone name"),
        (("--commit", "HEAD"), 2, "no turn's commit"),
        (("--commit", "nonesuch"), 2, "names no commit here"),
        (("--commit", "refs/agent-guard-remotes/origin/alpha/claude", "--agent", "codex"), 2, "not of codex"),
        (("--commit", "refs/agent-guard-remotes/origin/alpha/claude", "--turn", "1"), 2, "give --commit alone"),
    ]
    for args, code, said in cases:
        r = b.ag("rollback", "--agent", "claude", "--json", *args) if "--agent" not in args else b.ag("rollback", "--json", *args)
        assert r.code == code and said in r.stdout + r.stderr, (args, r)
        assert b.snapshot() == snap, args
    r = b.ag("rollback", "--agent", "claude", "--clone", "alpha", "--turn", "1", "--force")
    assert r.code == 0, r
    assert "line 2\n" in (b.root / "f.txt").read_text()


def test_commit_names_a_turn_of_this_clone_too(team: Team) -> None:
    a = team.a
    first = str(a.edit("f.txt", "line 2\n", "ALPHA 2\n")["turn"]["commit"])  # type: ignore[index]
    a.edit("f.txt", "line 9\n", "ALPHA 9\n")
    r = a.ag("rollback", "--commit", first, "--json")
    assert r.code == 0 and r.json()["rolls_back"] == ["1"] and r.json()["rolls_back_from"] is None, r
    assert (a.root / "f.txt").read_text() == BASE["f.txt"].replace("line 9\n", "ALPHA 9\n")
    snap = a.snapshot()
    r = a.ag("rollback", "--commit", first)
    assert r.code == 2 and "already rolled back" in r.stderr, r
    assert a.snapshot() == snap


def test_rollback_with_no_turns_here_points_at_the_fetched_ones(team: Team) -> None:
    a, b = team.a, team.b
    a.edit("f.txt", "line 2\n", "ALPHA 2\n")
    a.push()
    b.fetch()
    r = b.ag("rollback", "--agent", "claude")
    assert r.code == 2 and "fetched from other clones (alpha)" in r.stderr and "--clone alpha --turn ID" in r.stderr, r


# ---------------------------------------------------------------------- gc


def test_gc_in_a_keeps_pushed_turns_unless_told(team: Team) -> None:
    a = team.a
    for i in range(2, 7):
        a.edit("f.txt", f"line {i}\n", f"ALPHA {i}\n")
    a.push()
    tip = a.tip("refs/agent-guard/claude")
    r = a.ag("gc", "--keep", "2")
    assert r.code == 0 and "claude: removed nothing, kept 5 turns" in r.stdout, r
    assert "the 3 turns to prune were pushed (refs/agent-guard-remotes/origin/alpha/claude holds them)" in r.stdout, r
    assert "--include-pushed" in r.stdout
    assert a.tip("refs/agent-guard/claude") == tip
    # Turns recorded after the push are not pushed, but the older ones still are.
    a.edit("f.txt", "line 8\n", "ALPHA 8\n")
    r = a.ag("gc", "--keep", "1")
    assert "removed nothing, kept 6 turns: the 5 turns to prune were pushed" in r.stdout, r
    r = a.ag("gc", "--keep", "0")
    assert "removed nothing, kept 6 turns: 5 of the 6 turns to prune were pushed" in r.stdout, r
    r = a.ag("gc", "--keep", "3", "--include-pushed", "--dry-run")
    assert r.code == 0 and r.stdout.strip() == "claude: would remove 3 turns, kept 3 turns", r
    assert a.tip("refs/agent-guard/claude") != "" and len(a.log()) == 6
    r = a.ag("gc", "--keep", "3", "--include-pushed")
    assert r.stdout.strip() == "claude: removed 3 turns, kept 3 turns", r
    assert [t["id"] for t in a.log()] == ["6", "5", "4"]
    # The pruned ledger pushes (forced), and replaces the remote's copy.
    a.push()
    assert team.remote_refs()["refs/agent-guard-clones/alpha/claude"] == a.tip("refs/agent-guard/claude")


def test_gc_keeps_turns_pushed_with_plain_git_once_fetched(team: Team) -> None:
    a = team.a
    for i in range(2, 5):
        a.edit("f.txt", f"line {i}\n", f"ALPHA {i}\n")
    a.git("push", "-q", "origin", "+refs/agent-guard/*:refs/agent-guard-clones/alpha/*")
    a.git("fetch", "-q", "origin", "+refs/agent-guard-clones/*:refs/agent-guard-remotes/origin/*")
    r = a.ag("gc", "--keep", "1")
    assert "removed nothing, kept 3 turns" in r.stdout, r


def test_gc_says_how_much_it_removed(team: Team) -> None:
    a = team.a
    for i in range(2, 7):
        a.edit("f.txt", f"line {i}\n", f"ALPHA {i}\n")
    r = a.ag("gc", "--keep", "2", "--dry-run")
    assert r.stdout.strip() == "claude: would remove 3 turns, kept 2 turns", r
    assert len(a.log()) == 5
    r = a.ag("gc", "--keep", "2")
    assert r.stdout.strip() == "claude: removed 3 turns, kept 2 turns", r
    r = a.ag("gc", "--keep", "0")
    assert r.stdout.strip() == "claude: removed every turn (2)", r
    assert a.tip("refs/agent-guard/claude") == ""
