"""The presets as generated Python (``policy.presets_read``): current with their files, used only
for a file's text as shipped, and the reason they exist: a command that reads only presets does
not import PyYAML."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import Repo, python

from guard import policy
from guard.policy.presets_read import PRESETS

REGENERATE = "run `PYTHONPATH=. python scripts/gen_presets.py` from the checkout"


def test_the_generated_presets_are_the_files_parsed() -> None:
    names = policy.presets()
    assert sorted(PRESETS) == list(names), f"the presets are {names}, the generated module has {sorted(PRESETS)}: {REGENERATE}"
    for name in names:
        text = (policy.PRESET_DIR / f"{name}.yaml").read_bytes().decode("utf-8")
        shipped, body, parent = PRESETS[name]
        assert shipped == text, f"guard/policies/{name}.yaml changed since presets_read.py was generated: {REGENERATE}"
        parsed = policy._settings(text, f"preset {name}", True)  # the YAML path
        # repr as well as ==: True == 1 and key order is not compared by ==; both must be as parsed.
        assert (body, parent) == parsed and repr((body, parent)) == repr(parsed), f"{name}: {REGENERATE}"


def _spy_on_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The labels of the policy texts parsed with PyYAML from now on."""
    parsed: list[str] = []
    real = policy._settings

    def spy(text: str, label: str, root: bool) -> tuple[dict[str, object], str | None]:
        parsed.append(label)
        return real(text, label, root)

    monkeypatch.setattr(policy, "_settings", spy)
    return parsed


def test_a_shipped_preset_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # another key for ``load``'s kept policies: this process may hold one
    parsed = _spy_on_parses(monkeypatch)
    pol = policy.load(None, "strict")
    assert parsed == [] and pol.name == "strict(extends default)" and pol.level("no-op") == "error"


def test_a_preset_edited_in_place_is_parsed_from_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    presets = tmp_path / "policies"
    shutil.copytree(policy.PRESET_DIR, presets)
    default = presets / "default.yaml"
    text = default.read_text(encoding="utf-8")
    assert "read_protected: false" in text
    default.write_text(text.replace("read_protected: false", "read_protected: true"), encoding="utf-8")
    monkeypatch.setattr(policy, "PRESET_DIR", presets)
    monkeypatch.chdir(tmp_path)
    parsed = _spy_on_parses(monkeypatch)

    pol = policy.load(None, "strict")
    # The edited base is read from its file; `strict`, as shipped, from the generated settings.
    assert parsed == ["preset default"]
    assert pol.get("read_protected") is True and pol.level("no-op") == "error"

    default.write_text(text.replace("read_protected: false", "read_protected: [false"), encoding="utf-8")
    with pytest.raises(policy.PolicyError, match="preset default: not valid YAML"):
        policy.load(None, "default")


PATCH = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
RUN = (
    "import sys\nfrom guard.cli.commands import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    code = exc.code\n"
    "print('exit', code, 'yaml' in sys.modules)\n"
)


@pytest.mark.parametrize("args", [["apply", "--check", "../fix.patch"], ["check"]])
def test_a_repository_without_a_policy_file_never_imports_yaml(repo: Repo, args: list[str]) -> None:
    repo.commit({"a.py": "x = 1\ny = 2\n"})
    (repo.root.parent / "fix.patch").write_text(PATCH)
    repo.write({"b.py": "z = 1\n"})
    repo.git("add", "b.py")  # what `check` judges

    without = python(repo.root, "-c", RUN, *args)
    assert without.stdout.splitlines()[-1] == "exit 0 False", without.stdout + without.stderr

    (repo.root / ".agent-guard.yaml").write_text("extends: default\n")
    repo.git("add", ".agent-guard.yaml")
    with_file = python(repo.root, "-c", RUN, *args)
    assert with_file.stdout.splitlines()[-1] == "exit 0 True", with_file.stdout + with_file.stderr
    if args[0] == "apply":
        assert with_file.stdout == without.stdout.replace("False", "True") and "modify  a.py  +1 -1" in without.stdout
    assert with_file.stderr == without.stderr
