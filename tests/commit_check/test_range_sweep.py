"""A hostile sweep of the commit-range check, written as someone trying to slip content past it
would (issue 23, section 2): evil merges in several spellings, merges that must pass, a policy
relaxed inside the range, and histories with no common base.  Each case is one commit history
made by git itself; each is checked in the work tree and, where it says so, in a bare clone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from conftest import Repo, git, run_cli

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
JS = "function total(items) {\n  let sum = 0;\n  for (const x of items) sum += x;\n  return sum;\n}\n"
CONF = "a = 1\nb = 2\nc = 3\n"


def _branch(repo: Repo, name: str, files: dict[str, str], start: str = "main") -> None:
    repo.git("checkout", "-q", "-b", name, start)
    repo.commit(files, message=f"{name} work")
    repo.git("checkout", "-q", "main")


def _evil(repo: Repo, files: dict[str, str], *heads: str, message: str = "Merge") -> str:
    repo.git("merge", "-q", "--no-commit", "--no-ff", *heads, check=False)
    repo.write(files)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", message)
    return repo.git("rev-parse", "HEAD").strip()


# --- evil merges: (name, build) where build returns (base, the merge, the finding code expected) --------
def _both_sides(repo: Repo) -> str:
    base = repo.commit({"app.py": CODE, "web.js": JS, "conf.py": CONF}, message="base")
    _branch(
        repo, "topic", {"app.py": CODE + "\n\ndef mean(x):\n    return total(x) / len(x)\n", "conf.py": "a = 1\nb = 200\nc = 3\n"}
    )
    repo.commit({"app.py": "import math\n\n" + CODE, "conf.py": "a = 1\nb = 20\nc = 3\n"}, message="main work")
    return base


def evil_placeholder(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return (
        base,
        _evil(
            repo,
            {"app.py": "import math\n\ndef total(items):\n    # ... existing code ...\n", "conf.py": "a = 1\nb = 20\nc = 3\n"},
            "topic",
        ),
        "placeholder",
    )


def evil_placeholder_untouched_file(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return (
        base,
        _evil(
            repo,
            {"web.js": "function total(items) {\n  // rest of the code unchanged\n}\n", "conf.py": "a = 1\nb = 20\nc = 3\n"},
            "topic",
        ),
        "placeholder",
    )


def evil_placeholder_in_resolution(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return base, _evil(repo, {"conf.py": "a = 1\n# ... rest of the settings unchanged ...\nc = 3\n"}, "topic"), "placeholder"


def evil_markers_left_in(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    repo.git("merge", "-q", "--no-ff", "topic", check=False)  # stops on conf.py, markers written by git
    repo.git("commit", "-q", "-a", "-m", "Merge topic")
    return base, repo.git("rev-parse", "HEAD").strip(), "conflict-marker"


def evil_diff3_markers_left_in(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    repo.git("-c", "merge.conflictStyle=diff3", "merge", "-q", "--no-ff", "topic", check=False)
    assert "|||||||" in repo.read("conf.py").decode()
    repo.git("commit", "-q", "-a", "-m", "Merge topic")
    return base, repo.git("rev-parse", "HEAD").strip(), "conflict-marker"


def evil_markers_in_new_file(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return (
        base,
        _evil(
            repo,
            {"conf.py": "a = 1\nb = 20\nc = 3\n", "new.py": "<<<<<<< ours\nx = 1\n=======\nx = 2\n>>>>>>> theirs\n"},
            "topic",
        ),
        "conflict-marker",
    )


def evil_trailing_blanks(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return base, _evil(repo, {"conf.py": "a = 1\nb = 21   \nc = 3\n"}, "topic"), "whitespace"


def evil_space_before_tab(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return base, _evil(repo, {"conf.py": "a = 1\nif b:\n \tb = 21\nc = 3\n"}, "topic"), "whitespace"


def evil_secret_env(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return base, _evil(repo, {"conf.py": "a = 1\nb = 20\nc = 3\n", ".env": "TOKEN=s3cr3t\n"}, "topic"), "path-protected"


def evil_secret_key(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return (
        base,
        _evil(repo, {"conf.py": "a = 1\nb = 20\nc = 3\n", "deploy/id_rsa": "-----BEGIN KEY-----\n"}, "topic"),
        "path-protected",
    )


def evil_budget(repo: Repo) -> tuple[str, str, str]:
    base = _both_sides(repo)
    return (
        base,
        _evil(repo, {"conf.py": "a = 1\nb = 20\nc = 3\n", "gen.py": "".join(f"v{i} = {i}\n" for i in range(401))}, "topic"),
        "budget",
    )


def evil_octopus(repo: Repo) -> tuple[str, str, str]:
    base = repo.commit({"app.py": CODE}, message="base")
    for name in ("one", "two", "three"):
        _branch(repo, name, {f"{name}.py": f"{name} = 1\n"}, start=base)
    return base, _evil(repo, {"app.py": "def total(items):\n    # ... existing code ...\n"}, "one", "two", "three"), "placeholder"


def evil_criss_cross(repo: Repo) -> tuple[str, str, str]:
    base = repo.commit({"app.py": CODE, "a.py": "a = 0\n", "b.py": "b = 0\n"}, message="base")
    _branch(repo, "topic", {"b.py": "b = 1\n"})
    repo.commit({"a.py": "a = 1\n"}, message="main 1")
    repo.git("merge", "-q", "--no-ff", "-m", "main takes topic", "topic")
    repo.git("checkout", "-q", "topic")
    repo.git("merge", "-q", "--no-ff", "-m", "topic takes main", "main~1")
    repo.commit({"b.py": "b = 2\n"}, message="topic 2")
    repo.git("checkout", "-q", "main")
    repo.commit({"a.py": "a = 2\n"}, message="main 2")
    assert len(repo.git("merge-base", "--all", "main", "topic").split()) == 2
    return base, _evil(repo, {"app.py": "def total(items):\n    # ... existing code ...\n"}, "topic"), "placeholder"


def evil_unrelated(repo: Repo) -> tuple[str, str, str]:
    base = repo.commit({"app.py": CODE}, message="base")
    repo.git("checkout", "-q", "--orphan", "other")
    repo.git("rm", "-q", "-rf", ".")
    repo.commit({"other.py": "o = 1\n"}, message="other root")
    repo.git("checkout", "-q", "main")
    return (
        base,
        _evil(repo, {"app.py": "def total(items):\n    # ... existing code ...\n"}, "--allow-unrelated-histories", "other"),
        "placeholder",
    )


EVIL: dict[str, Callable[[Repo], tuple[str, str, str]]] = {
    f.__name__: f
    for f in (
        evil_placeholder,
        evil_placeholder_untouched_file,
        evil_placeholder_in_resolution,
        evil_markers_left_in,
        evil_diff3_markers_left_in,
        evil_markers_in_new_file,
        evil_trailing_blanks,
        evil_space_before_tab,
        evil_secret_env,
        evil_secret_key,
        evil_budget,
        evil_octopus,
        evil_criss_cross,
        evil_unrelated,
    )
}


@pytest.mark.parametrize("name", sorted(EVIL))
def test_an_evil_merge_is_caught(repo: Repo, tmp_path: Path, name: str) -> None:
    base, merge, code = EVIL[name](repo)
    for where in (repo.root, _bare(repo, tmp_path)):
        result = run_cli(where, "check", "--from-ref", base, "--to-ref", "main", "--policy", "strict", "--json")
        found = [(f["code"], f["severity"]) for f in result.json()["findings"] if f["commit"] == merge]
        assert found and {c for c, _s in found} == {code}, (name, result)
        # A protected path is reported at commit time, not refused; everything else refuses.
        assert result.code == (0 if code == "path-protected" else 1), (name, result)


# --- merges that must pass: (name, build) returning (base, the merge) ------------------------------
def _resolved(repo: Repo, text: str) -> tuple[str, str]:
    base = _both_sides(repo)
    repo.git("merge", "-q", "--no-ff", "topic", check=False)
    repo.write({"conf.py": text, "app.py": "import math\n\n" + CODE + "\n\ndef mean(x):\n    return total(x) / len(x)\n"})
    repo.git("commit", "-q", "-a", "-m", "Merge topic")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_disjoint(repo: Repo) -> tuple[str, str]:
    base = repo.commit({"app.py": CODE}, message="base")
    _branch(repo, "topic", {"t.py": "t = 1\n"})
    repo.commit({"m.py": "m = 1\n"}, message="main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge", "topic")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_same_file(repo: Repo) -> tuple[str, str]:
    base = repo.commit({"app.py": CODE}, message="base")
    _branch(repo, "topic", {"app.py": CODE + "\n\ndef mean(x):\n    return total(x) / len(x)\n"})
    repo.commit({"app.py": "import math\n\n" + CODE}, message="main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge", "topic")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_resolved_ours(repo: Repo) -> tuple[str, str]:
    return _resolved(repo, "a = 1\nb = 20\nc = 3\n")


def clean_resolved_theirs(repo: Repo) -> tuple[str, str]:
    return _resolved(repo, "a = 1\nb = 200\nc = 3\n")


def clean_resolved_both(repo: Repo) -> tuple[str, str]:
    return _resolved(repo, "a = 1\nb = 20\nb = 200\nc = 3\n")


def clean_resolved_both_reversed(repo: Repo) -> tuple[str, str]:
    return _resolved(repo, "a = 1\nb = 200\nb = 20\nc = 3\n")


def clean_resolved_neither(repo: Repo) -> tuple[str, str]:
    return _resolved(repo, "a = 1\nc = 3\n")


def clean_octopus(repo: Repo) -> tuple[str, str]:
    base = repo.commit({"app.py": CODE}, message="base")
    for name in ("one", "two", "three"):
        _branch(repo, name, {f"{name}.py": f"{name} = 1\n"}, start=base)
    repo.git("merge", "-q", "--no-ff", "-m", "Octopus", "one", "two", "three")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_criss_cross(repo: Repo) -> tuple[str, str]:
    base, _merge, _code = evil_criss_cross(repo)
    repo.git("reset", "-q", "--hard", "HEAD^")
    repo.git("merge", "-q", "--no-ff", "-m", "criss-cross", "topic")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_unrelated(repo: Repo) -> tuple[str, str]:
    base, _merge, _code = evil_unrelated(repo)
    repo.git("reset", "-q", "--hard", "HEAD^")
    repo.git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "join", "other")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_rename_and_change(repo: Repo) -> tuple[str, str]:
    lib = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(12))
    base = repo.commit({"lib.py": lib}, message="base")
    repo.git("checkout", "-q", "-b", "topic")
    repo.git("mv", "lib.py", "core.py")
    repo.commit({"core.py": lib + "X = 1\n"}, message="move")
    repo.git("checkout", "-q", "main")
    repo.commit({"lib.py": "import os\n" + lib}, message="main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge", "topic")
    return base, repo.git("rev-parse", "HEAD").strip()


def clean_strategy_ours(repo: Repo) -> tuple[str, str]:
    base = _both_sides(repo)
    repo.git("merge", "-q", "--no-ff", "-s", "ours", "-m", "Merge, ours", "topic")
    return base, repo.git("rev-parse", "HEAD").strip()


CLEAN: dict[str, Callable[[Repo], tuple[str, str]]] = {
    f.__name__: f
    for f in (
        clean_disjoint,
        clean_same_file,
        clean_resolved_ours,
        clean_resolved_theirs,
        clean_resolved_both,
        clean_resolved_both_reversed,
        clean_resolved_neither,
        clean_octopus,
        clean_criss_cross,
        clean_unrelated,
        clean_rename_and_change,
        clean_strategy_ours,
    )
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_merge_without_content_of_its_own_passes(repo: Repo, tmp_path: Path, name: str) -> None:
    base, merge = CLEAN[name](repo)
    for where in (repo.root, _bare(repo, tmp_path)):
        result = run_cli(where, "check", "--from-ref", base, "--to-ref", "main", "--policy", "strict", "--json")
        assert [f for f in result.json()["findings"] if f["commit"] == merge] == [], (name, result)
        assert result.code == 0, (name, result)


# --- a policy relaxed inside the range: (name, the relaxing commit's change) ---------------------------
RELAX: dict[str, dict[str, str | None]] = {
    "extends_permissive": {".agent-guard.yaml": "extends: permissive\n"},
    "placeholder_off": {".agent-guard.yaml": "checks: {placeholder: off}\n"},
    "placeholder_warning": {".agent-guard.yaml": "checks:\n  placeholder: warning\n"},
    "placeholder_exempt": {".agent-guard.yaml": "placeholder:\n  exempt: ['.*']\n"},
    "deleted": {".agent-guard.yaml": None},
    "renamed_away": {".agent-guard.yaml": None, "old-policy.yaml": "extends: strict\n"},
    "extends_a_new_file": {".agent-guard.yaml": "extends: ./loose.yaml\n", "loose.yaml": "extends: permissive\n"},
    "team_file_relaxed": {"team.yaml": "extends: permissive\n"},
}


@pytest.mark.parametrize("name", sorted(RELAX))
def test_a_policy_relaxed_inside_the_range_does_not_apply_to_it(repo: Repo, tmp_path: Path, name: str) -> None:
    base = repo.commit(
        {"app.py": CODE, ".agent-guard.yaml": "extends: ./team.yaml\n", "team.yaml": "extends: strict\n"}, message="base"
    )
    for path in [p for p, text in RELAX[name].items() if text is None]:
        repo.git("rm", "-q", path)
    relaxing = repo.commit({p: t for p, t in RELAX[name].items() if t is not None}, message="relax")
    lazy = repo.commit({"app.py": "def total(items):\n    # ... rest of the code unchanged\n    return result\n"}, message="lazy")
    spaced = repo.commit({"app.py": CODE + "x = 1  \n"}, message="blanks")  # an error under strict only
    for where in (repo.root, _bare(repo, tmp_path)):
        result = run_cli(where, "check", "--from-ref", base, "--to-ref", "main", "--json")
        assert result.code == 1, (name, result)
        found = {(f["code"], f["severity"], f["commit"]) for f in result.json()["findings"]}
        assert ("placeholder", "error", lazy) in found and ("whitespace", "error", spaced) in found, (name, result)
        assert ("path-protected", "warning", relaxing) in found, (name, result)


# --- histories with no common base --------------------------------------------------------------
def test_new_roots_are_checked_whole(repo: Repo, tmp_path: Path) -> None:
    base = repo.commit({"app.py": CODE}, message="base")
    cases = 0
    for branch, files, lazy_first in (
        ("lazy-root", {"index.py": "# ... existing code ...\n"}, True),
        ("clean-root", {"index.py": "x = 1\n"}, False),
    ):
        repo.git("checkout", "-q", "--orphan", branch)
        repo.git("rm", "-q", "-rf", ".")
        root = repo.commit(files, message="root")
        later = repo.commit({"index.py": "x = 1\n# rest of the code unchanged\n"}, message="later")
        for where in (repo.root, _bare(repo, tmp_path)):
            for start in (base, "0" * 40):
                result = run_cli(where, "check", "--from-ref", start, "--to-ref", branch, "--json")
                commits = {f["commit"] for f in result.json()["findings"]}
                assert result.code == 1 and later in commits and (root in commits) == lazy_first, result
                cases += 1
        repo.git("checkout", "-q", "main")
    assert cases == 8


def _bare(repo: Repo, tmp_path: Path) -> Path:
    server = tmp_path / f"server{len(list(tmp_path.glob('server*')))}.git"
    git(tmp_path, "clone", "-q", "--bare", "--no-local", str(repo.root), str(server))
    return server
