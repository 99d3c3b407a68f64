"""Policies: presets, extends chains, per-agent overrides, schema errors, show() and validate_file()."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from guard import policy
from guard.policy import PolicyError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["default", "strict", "permissive"])
def test_presets_load(name: str) -> None:
    p = policy.load(None, name)
    assert p.name == name if name == "default" else p.name == f"{name}(extends default)"
    for check in policy.CHECK_NAMES:
        assert p.level(check) in ("error", "warning", "off", "fix")
    assert p.ledger_prefix == "refs/agent-guard/"
    assert p.max_file_bytes is not None
    assert ".agent-guard.yaml" in p.protected
    assert policy.validate_file(policy.PRESET_DIR / f"{name}.yaml") == []


def test_presets_folder_holds_the_shipped_presets(cli) -> None:  # type: ignore[no-untyped-def]
    # The README sends users to policies/ to read the presets; the package ships guard/policies/.
    folder = Path(__file__).resolve().parents[1] / "policies"
    assert folder.is_dir(), f"{folder} is missing or a broken link"
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    assert names == sorted(policy.presets()) == ["default", "permissive", "strict"]
    for name in names:
        assert (folder / f"{name}.yaml").read_bytes() == (policy.PRESET_DIR / f"{name}.yaml").read_bytes()
        result = cli("policy", "check", str(folder / f"{name}.yaml"))
        assert result.code == 0, result


def test_default_preset_values() -> None:
    p = policy.load(None, "default")
    assert (p.level("placeholder"), p.level("whitespace"), p.level("untracked")) == ("error", "fix", "error")
    assert p.tiers == policy.TIERS
    assert p.budget("per_edit") == {"files": 20, "lines_added": 400, "lines_removed": 400, "hunks": 40, "bytes": 200000}
    assert p.max_file_bytes == 1_000_000
    assert p.allow_create and not p.read_before_edit and p.allow == ()
    assert set(p.protected) >= {
        ".github/workflows/**",
        ".gitlab-ci.yml",
        ".env",
        ".env.*",
        "**/*.pem",
        "**/*.key",
        "**/id_rsa*",
        ".agent-guard.yaml",
        # CI systems' files and secrets beside the first ones (issue 37)
        ".github/actions/**/action.yml",
        ".circleci/**",
        ".travis.yml",
        "Jenkinsfile",
        "azure-pipelines.yml",
        ".buildkite/**",
        "**/id_ed25519*",
        "**/*.p12",
        "**/.npmrc",
        "**/.pypirc",
        "**/.netrc",
    }
    assert p.get("whitespace.rules") == "blank-at-eol,space-before-tab,blank-at-eof"


def test_strict_and_permissive() -> None:
    strict = policy.load(None, "strict")
    assert strict.level("whitespace") == "error" and strict.read_before_edit
    assert "fuzz" not in strict.tiers and "indent" not in strict.tiers
    assert all(strict.level(c) == "error" for c in policy.CHECK_NAMES)
    default = policy.load(None, "default")
    for key, limit in strict.budget("per_edit").items():
        assert limit < default.budget("per_edit")[key]
    permissive = policy.load(None, "permissive")
    assert permissive.level("placeholder") == "warning" and permissive.level("whitespace") == "fix"
    assert permissive.budget("per_edit") == permissive.budget("per_turn") == permissive.budget("per_session") == {}
    assert permissive.max_file_bytes is not None


def test_repo_file_is_the_default(tmp_path: Path) -> None:
    assert policy.load(tmp_path).name == "default"
    write(tmp_path / ".agent-guard.yaml", "checks: {placeholder: warning}\n")
    p = policy.load(tmp_path)
    assert p.name == ".agent-guard.yaml(extends default)"
    assert p.level("placeholder") == "warning" and p.level("untracked") == "error"
    assert p.sources["checks.placeholder"] == str((tmp_path / ".agent-guard.yaml").resolve())
    assert p.sources["checks.untracked"] == "preset default"


def test_spec_path_is_relative_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "conf" / "team.yaml", "extends: strict\n")
    monkeypatch.chdir(tmp_path)
    assert policy.load(None, "conf/team.yaml").name == "team.yaml(extends strict(extends default))"


def test_extends_chain_relative_to_the_extending_file(tmp_path: Path) -> None:
    write(tmp_path / "base" / "org.yaml", "extends: strict\nbudget: {per_edit: {files: 3}}\n")
    write(tmp_path / "team" / "team.yaml", "extends: ../base/org.yaml\nchecks: {no-op: warning}\n")
    top = write(tmp_path / "repo" / ".agent-guard.yaml", "extends: ../team/team.yaml\npaths: {protected: [secret/**]}\n")
    p = policy.load(top.parent)
    assert p.name == ".agent-guard.yaml(extends team.yaml(extends org.yaml(extends strict(extends default))))"
    assert p.budget("per_edit")["files"] == 3  # org
    assert p.budget("per_edit")["hunks"] == 15  # strict: mappings merge
    assert p.level("no-op") == "warning" and p.level("syntax") == "error"
    assert p.protected == ("secret/**",)  # lists replace
    assert p.sources["budget.per_edit.files"].endswith("org.yaml")
    assert p.sources["budget.per_edit.hunks"] == "preset strict"
    assert p.sources["paths.protected"].endswith(".agent-guard.yaml")


def test_extends_null_starts_from_nothing(tmp_path: Path) -> None:
    f = write(tmp_path / "bare.yaml", "extends: null\nchecks: {placeholder: error}\n")
    p = policy.load(None, str(f))
    assert p.level("placeholder") == "error" and p.level("untracked") == "off"
    assert p.protected == () and p.tiers == () and p.budget("per_edit") == {}


def test_per_agent_override(tmp_path: Path) -> None:
    write(
        tmp_path / ".agent-guard.yaml",
        (
            "extends: default\n"
            "agents:\n"
            "  claude: {budget: {per_turn: {lines_added: 200}}, checks: {no-op: error}}\n"
            "  codex: {read_before_edit: true}\n"
        ),
    )
    claude = policy.load(tmp_path, agent="claude")
    assert claude.budget("per_turn")["lines_added"] == 200
    assert claude.budget("per_turn")["files"] == 50  # the rest of per_turn still from default
    assert claude.level("no-op") == "error" and not claude.read_before_edit
    assert claude.sources["budget.per_turn.lines_added"].startswith("agents.claude in ")
    assert "agents" not in claude.data
    other = policy.load(tmp_path, agent="someone")
    assert other.budget("per_turn")["lines_added"] == 2000 and other.level("no-op") == "warning"
    assert policy.load(tmp_path, agent="codex").read_before_edit


def test_agent_override_in_a_preset_chain(tmp_path: Path) -> None:
    write(tmp_path / "base.yaml", "agents: {bot: {checks: {placeholder: warning}}}\n")
    top = write(tmp_path / ".agent-guard.yaml", "extends: base.yaml\nagents: {bot: {checks: {budget: off}}}\n")
    p = policy.load(top.parent, agent="bot")
    assert p.level("placeholder") == "warning" and p.level("budget") == "off"
    assert p.sources["checks.placeholder"] == f"agents.bot in {(tmp_path / 'base.yaml').resolve()}"


BAD = [
    (
        "unknown-nested-key",
        "budget: {per_edit: {lines_addded: 3}}\n",
        ["budget.per_edit.lines_addded", "did you mean 'budget.per_edit.lines_added'"],
    ),
    ("unknown-top-key", "chekcs: {placeholder: error}\n", ["chekcs", "did you mean 'checks'"]),
    ("unknown-check", "checks: {placehodler: error}\n", ["checks.placehodler", "did you mean 'checks.placeholder'"]),
    ("bad-level", "checks: {placeholder: eror}\n", ["checks.placeholder", "did you mean 'error'"]),
    ("fix-only-for-whitespace", "checks: {placeholder: fix}\n", ["checks.placeholder", "expected one of error, warning, off"]),
    ("wrong-type-int", "budget: {per_edit: {files: many}}\n", ["budget.per_edit.files", "whole number"]),
    ("bool-is-not-int", "budget: {max_file_bytes: true}\n", ["budget.max_file_bytes", "whole number"]),
    ("negative", "budget: {per_turn: {hunks: -1}}\n", ["budget.per_turn.hunks"]),
    ("wrong-type-list", "paths: {protected: .env}\n", ["paths.protected", "expected a list"]),
    ("wrong-type-mapping", "checks: [placeholder]\n", ["checks", "expected a mapping"]),
    ("wrong-type-bool", "read_before_edit: yes please\n", ["read_before_edit", "true or false"]),
    ("bad-tier", "locate: {tiers: [offset, fuzzy]}\n", ["locate.tiers", "did you mean 'fuzz'"]),
    ("bad-regex", "placeholder: {patterns: ['(unclosed']}\n", ["placeholder.patterns", "regular expression"]),
    (
        "bad-whitespace-rule",
        "whitespace: {rules: 'blank-at-eol,space-befor-tab'}\n",
        ["whitespace.rules", "did you mean 'space-before-tab'"],
    ),
    ("bad-ref-prefix", "ledger: {ref_prefix: 'heads/x'}\n", ["ledger.ref_prefix"]),
    ("bad-agent-key", "agents: {claude: {budgets: {}}}\n", ["agents.claude.budgets", "did you mean 'agents.claude.budget'"]),
    ("agent-extends", "agents: {claude: {extends: strict}}\n", ["agents.claude.extends"]),
    ("not-a-mapping", "- a\n- b\n", ["a policy is a mapping"]),
    ("not-yaml", "checks: {placeholder: [\n", ["not valid YAML", "line"]),
    (
        "protected-extra-typo",
        "paths: {protected_extras: ['x/**']}\n",
        ["paths.protected_extras", "did you mean 'paths.protected_extra'"],
    ),
    (
        "protected-extra-words-swapped",
        "paths: {extra_protected: ['x/**']}\n",
        ["paths.extra_protected", "did you mean 'paths.protected_extra'"],
    ),
    ("protected-extra-not-a-list", "paths: {protected_extra: 'x/**'}\n", ["paths.protected_extra", "expected a list"]),
    ("read-protected-typo", "read_protectd: true\n", ["read_protectd", "did you mean 'read_protected'"]),
    # A key put at the wrong level (the README's own example): where it goes, not a neighbour's spelling.
    (
        "extra-protected-at-the-top",
        "extra_protected: ['x/**']\n",
        ["extra_protected: unknown key; did you mean 'paths.protected_extra'? (protected_extra goes under paths:)"],
    ),
    ("protected-extra-at-the-top", "protected_extra: ['x/**']\n", ["did you mean 'paths.protected_extra'?"]),
    ("tiers-at-the-top", "tiers: [offset]\n", ["did you mean 'locate.tiers'? (tiers goes under locate:)"]),
    (
        "agent-key-at-the-wrong-level",
        "agents: {claude: {extra_protected: ['x']}}\n",
        ["did you mean 'agents.claude.paths.protected_extra'?"],
    ),
    ("exclude-a-protected-path", "exclude: {path-protected: ['x']}\n", ["exclude.path-protected", "cannot be excluded"]),
    ("exclude-a-typo", "exclude: {placeholdr: ['x']}\n", ["did you mean 'exclude.placeholder'"]),
    ("baseline-outside", "baseline: ../b.json\n", ["baseline", "inside the repository"]),
    ("read-protected-not-bool", "read_protected: sometimes\n", ["read_protected", "true or false"]),
]


def test_libyaml_reads_the_presets_and_the_bad_policies_as_pure_python_pyyaml() -> None:
    # The policy is read with libyaml's parser where PyYAML has it; PyYAML's own parser is the reference.
    assert yaml.__with_libyaml__, "this PyYAML has no libyaml: the fast parser goes untested here"
    texts = [p.read_text() for p in sorted(policy.PRESET_DIR.glob("*.yaml"))] + [b[1] for b in BAD]

    def read(text: str, loader: type) -> object:
        try:
            return yaml.load(text, Loader=loader)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            return ("not YAML", mark and mark.line)

    for text in texts:
        assert read(text, yaml.CSafeLoader) == read(text, yaml.SafeLoader), text


@pytest.mark.parametrize("levels", [63, 65, 900])
def test_nesting_past_64_levels_is_refused(tmp_path: Path, levels: int) -> None:
    write(tmp_path / ".agent-guard.yaml", "budget: " + "[" * (levels - 1) + "1" + "]" * (levels - 1) + "\n")
    with pytest.raises(PolicyError) as info:
        policy.load(tmp_path)
    # 63 levels parse (and then fail the schema: a budget is a mapping); past 64 nothing reads on.
    assert ("nested too deeply" in str(info.value)) == (levels > 64), info.value


@pytest.mark.parametrize("text,expected", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_policy(tmp_path: Path, text: str, expected: list[str]) -> None:
    f = write(tmp_path / ".agent-guard.yaml", text)
    with pytest.raises(PolicyError) as info:
        policy.load(tmp_path)
    message = str(info.value)
    assert str(f.resolve()) in message
    for part in expected:
        assert part in message
    problems = policy.validate_file(f)
    assert problems and all(part in "\n".join(problems) for part in expected)


def test_validate_file_reports_every_problem(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", "checks: {placeholder: eror, whitespace: fixx}\nbudget: {per_edit: {filez: 1}}\n")
    problems = policy.validate_file(f)
    assert len(problems) == 3
    assert policy.validate_file(write(tmp_path / "ok.yaml", "extends: strict\n")) == []


def test_extends_cycle(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "extends: b.yaml\n")
    write(tmp_path / "b.yaml", "extends: c.yaml\n")
    write(tmp_path / "c.yaml", "extends: a.yaml\n")
    with pytest.raises(PolicyError, match=r"extends cycle: .*a\.yaml -> .*b\.yaml -> .*c\.yaml -> .*a\.yaml"):
        policy.load(None, str(tmp_path / "a.yaml"))
    assert any("cycle" in p for p in policy.validate_file(tmp_path / "a.yaml"))


def test_self_extends_is_a_cycle(tmp_path: Path) -> None:
    f = write(tmp_path / "me.yaml", "extends: me.yaml\n")
    with pytest.raises(PolicyError, match="cycle"):
        policy.load(None, str(f))


def test_unknown_preset_suggests(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="did you mean 'strict'"):
        policy.load(None, "stirct")
    write(tmp_path / ".agent-guard.yaml", "extends: permisive\n")
    with pytest.raises(PolicyError, match="did you mean 'permissive'"):
        policy.load(tmp_path)


def test_missing_extends_file(tmp_path: Path) -> None:
    write(tmp_path / ".agent-guard.yaml", "extends: ./nope.yaml\n")
    with pytest.raises(PolicyError, match="nope.yaml does not exist"):
        policy.load(tmp_path)


def test_missing_spec_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyError, match="does not exist"):
        policy.load(None, "missing.yaml")


def test_unreadable_file(tmp_path: Path) -> None:
    f = write(tmp_path / ".agent-guard.yaml", "checks: {}\n")
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    f.chmod(0)
    with pytest.raises(PolicyError, match="cannot read"):
        policy.load(tmp_path)


def test_show_round_trips_with_sources(tmp_path: Path) -> None:
    write(
        tmp_path / ".agent-guard.yaml",
        ("extends: strict\nchecks: {placeholder: warning}\nagents: {claude: {budget: {per_turn: {files: 2}}}}\n"),
    )
    p = policy.load(tmp_path, agent="claude")
    text = policy.show(p)
    assert yaml.safe_load(text) == p.data
    lines = text.splitlines()
    assert lines[0] == "# effective policy: .agent-guard.yaml(extends strict(extends default)) for agent claude"
    assert any(line.strip().startswith("placeholder: warning  # from: /") for line in lines)
    assert any(line.strip() == "untracked: error  # from: preset strict" for line in lines)
    assert any(line.strip() == "create: true  # from: preset default" for line in lines)
    assert any("files: 2  # from: agents.claude in /" in line for line in lines)
    leaves = [line for line in lines[1:] if not line.rstrip().endswith(":") and not line.startswith("#")]
    assert all("# from: " in line for line in leaves)


def test_get_and_missing_values() -> None:
    p = policy.load(None, "default")
    assert p.get("budget.per_edit.files") == 20
    assert p.get("budget.nope", 7) == 7 and p.get("checks.placeholder.deeper") is None
    assert p.level("no-such-check") == "off" and p.budget("per_week") == {}


def test_bare_off_is_off(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", "checks: {placeholder: off}\nagents: {bot: {checks: {budget: off}}}\n")
    p = policy.load(None, str(f), agent="bot")
    assert p.level("placeholder") == "off" and p.level("budget") == "off"
    assert p.get("checks.placeholder") == "off"


def test_null_lifts_a_limit(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", "budget: {per_edit: {files: null}, max_file_bytes: null}\n")
    p = policy.load(None, str(f))
    assert "files" not in p.budget("per_edit") and p.budget("per_edit")["hunks"] == 40
    assert p.max_file_bytes is None


def test_ledger_prefix_gets_a_slash(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", "ledger: {ref_prefix: refs/bots}\n")
    assert policy.load(None, str(f)).ledger_prefix == "refs/bots/"


def test_tiers_come_in_locate_order(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", "locate: {tiers: [fuzz, offset, eol]}\n")
    assert policy.load(None, str(f)).tiers == ("offset", "eol", "fuzz")


def test_no_policy_is_kept_between_loads(tmp_path: Path) -> None:
    """Each load parses the files as they are: nothing written outside the repository, nothing kept."""
    home = Path(os.environ["HOME"])
    f = tmp_path / "p.yaml"
    f.write_text("checks:\n  placeholder: warning\n")
    assert policy.load(tmp_path, str(f)).level("placeholder") == "warning"
    f.write_text("checks:\n  placeholder: off\n")
    assert policy.load(tmp_path, str(f)).level("placeholder") == "off"
    assert not (home / ".cache" / "agent-guard").exists()


# --- protected paths: lists replace, protected_extra adds, the policy's own files --------------

DEFAULT_PROTECTED = policy.load(None, "default").protected


def test_a_protected_list_replaces_the_preset_s(tmp_path: Path) -> None:
    """Lists replace (the README says so): a user's `paths.protected` alone drops `.env` and the rest."""
    write(tmp_path / ".agent-guard.yaml", "paths: {protected: ['deploy/**']}\n")
    p = policy.load(tmp_path)
    assert p.protected == ("deploy/**",)
    assert p.sources["paths.protected"] == str((tmp_path / ".agent-guard.yaml").resolve())


def test_protected_extra_adds_to_the_preset_s(tmp_path: Path) -> None:
    from guard.files.paths import protected_finding

    f = write(tmp_path / ".agent-guard.yaml", "extends: strict\npaths: {protected_extra: ['deploy/**', '.env']}\n")
    p = policy.load(tmp_path)
    assert p.protected == DEFAULT_PROTECTED + ("deploy/**",)
    found = protected_finding("deploy/prod.sh", p)
    assert found is not None and found.severity == "error"
    assert f"(paths.protected_extra, from {f.resolve()})" in found.message
    env = protected_finding(".env", p)
    assert env is not None and "(paths.protected, from preset default)" in env.message


def test_protected_extra_adds_up_across_layers_and_agents(tmp_path: Path) -> None:
    """What a team's policy adds, the file that extends it (or an agent's overrides) cannot drop,
    even when it replaces `paths.protected` itself."""
    team = write(tmp_path / "team.yaml", "extends: default\npaths: {protected_extra: ['infra/**']}\n")
    own = write(
        tmp_path / ".agent-guard.yaml",
        (
            "extends: ./team.yaml\npaths: {protected: ['.env'], protected_extra: ['deploy/**']}\n"
            "agents: {claude: {paths: {protected_extra: ['notes/**']}}}\n"
        ),
    )
    p = policy.load(tmp_path)
    assert p.protected == (".env", "infra/**", "deploy/**")
    assert p.sources["paths.protected_extra"] == f"{team.resolve()} + {own.resolve()}"
    claude = policy.load(tmp_path, agent="claude")
    assert claude.protected == (".env", "infra/**", "deploy/**", "notes/**")
    # An empty list adds nothing, and takes nothing away.
    write(tmp_path / ".agent-guard.yaml", "extends: ./team.yaml\npaths: {protected_extra: []}\n")
    assert "infra/**" in policy.load(tmp_path).protected


def test_show_and_check_know_protected_extra(repo, cli) -> None:  # type: ignore[no-untyped-def]
    write(repo.root / ".agent-guard.yaml", "extends: ./policies/team.yaml\npaths: {protected_extra: ['deploy/**']}\n")
    write(repo.root / "policies" / "team.yaml", "extends: strict\n")
    r = cli("policy", "show", cwd=repo.root)
    assert r.code == 0, r
    shown = yaml.safe_load(r.stdout)
    assert shown["paths"]["protected_extra"] == ["deploy/**"] and ".env" in shown["paths"]["protected"]
    assert "# always protected" in r.stdout and ".agent-guard.yaml, policies/team.yaml" in r.stdout
    assert cli("policy", "check", ".agent-guard.yaml", cwd=repo.root).code == 0
    write(repo.root / "typo.yaml", "paths: {extra_protected: ['x']}\n")
    r = cli("policy", "check", "typo.yaml", cwd=repo.root)
    assert r.code == 2 and "did you mean 'paths.protected_extra'" in r.stderr, r


def test_own_files_are_the_policy_s_files_in_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = write(tmp_path / "shared" / "org.yaml", "extends: strict\n")
    write(root / "policies" / "team.yaml", f"extends: {outside}\n")
    write(root / ".agent-guard.yaml", "extends: ./policies/team.yaml\n")
    assert policy.load(root).own_files == (".agent-guard.yaml", "policies/team.yaml")
    # With another policy named, the repository's file stays the agents' to leave alone.
    assert policy.load(root, str(root / "policies" / "team.yaml")).own_files == (".agent-guard.yaml", "policies/team.yaml")
    assert policy.load(root, "strict").own_files == (".agent-guard.yaml",)
    # Read through a link, a file is protected where it really is.
    (root / "linked.yaml").symlink_to("policies/team.yaml")
    write(root / ".agent-guard.yaml", "extends: ./linked.yaml\n")
    assert policy.load(root).own_files == (".agent-guard.yaml", "policies/team.yaml")


# --- policy show --json, policy list, outside a repository ------------------------------------
def test_policy_show_json_is_the_settings_with_their_sources(repo, cli) -> None:  # type: ignore[no-untyped-def]
    write(repo.root / ".agent-guard.yaml", "checks: {syntax: error}\n")
    repo.commit()
    doc = cli("policy", "show", "--json").json()
    assert doc["version"] == 1 and doc["name"] == ".agent-guard.yaml(extends default)"
    assert doc["settings"]["checks"]["syntax"] == "error" and doc["sources"]["checks.syntax"].endswith(".agent-guard.yaml")
    assert doc["sources"]["checks.placeholder"] == "preset default" and ".agent-guard.yaml" in doc["own_files"]
    assert cli("policy", "show", "--json", "--agent", "claude").json()["agent"] == "claude"


def test_policy_list_names_every_preset_and_what_it_is_for(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("policy", "list", cwd=tmp_path)  # no repository needed
    assert r.code == 0, r
    rows = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert set(rows) == set(policy.presets()) == {"default", "strict", "permissive"}
    assert rows["strict"].startswith("every warning is an error") and rows["default"].startswith("what a repository gets")
    doc = cli("policy", "list", "--json", cwd=tmp_path).json()
    assert [p["name"] for p in doc["presets"]] == sorted(rows)


def test_policy_show_outside_a_repository(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "nowhere"
    outside.mkdir()
    strict = cli("policy", "show", "--policy", "strict", "--json", cwd=outside)
    assert strict.code == 0 and strict.json()["name"] == "strict(extends default)", strict
    assert cli("policy", "show", cwd=outside).stdout.startswith("# effective policy: default\n")
    write(outside / "team.yaml", "extends: permissive\n")
    assert (
        cli("policy", "show", "--policy", "team.yaml", "--json", cwd=outside).json()["name"]
        == "team.yaml(extends permissive(extends default))"
    )
    monkeypatch.setenv("AGENT_GUARD_POLICY", "strict")
    assert cli("policy", "show", "--json", cwd=outside).json()["name"] == "strict(extends default)"
    bad = cli("policy", "show", "--policy", "strct", "--json", cwd=outside)
    assert bad.code == 2 and "did you mean 'strict'" in bad.stderr and bad.json()["status"] == "error", bad


def test_policies_that_say_the_same_are_equal(tmp_path: Path) -> None:
    write(tmp_path / ".agent-guard.yaml", "extends: default\nchecks:\n  placeholder: warning\n")
    one = policy.load(tmp_path, agent="a")
    policy._BUILT.clear()  # two loads of one text share the memo's answer: build the second afresh
    two = policy.load(tmp_path, agent="a")
    assert one is not two and one.data is not two.data
    assert one.protected  # a cached answer worked out on one alone is no part of what it says
    assert one == two and hash(one) == hash(two) and len({one, two}) == 1
    # What holds a policy compares by it: a range judged by an equal policy is judged the same.
    assert judged_by(one) == judged_by(two) and hash(judged_by(one)) == hash(judged_by(two))
    write(tmp_path / ".agent-guard.yaml", "extends: default\nchecks:\n  placeholder: error\n")
    other = policy.load(tmp_path, agent="a")
    assert other != one and other.name == one.name and hash(other) == hash(one)  # the same name, other settings
    assert policy.load(tmp_path, agent="b") != other
    assert replace(one, agent="b").agent == "b" and one.agent == "a"


def judged_by(pol: policy.Policy) -> object:
    from guard.commit_check.range_policy import RangePolicy

    return RangePolicy(pol, "the policy in the work tree", frozenset({".agent-guard.yaml"}))


def test_the_parse_memo_answers_as_a_fresh_parse(tmp_path: Path) -> None:
    """`_settings` and `_build` reuse the parse of a text already seen: each answer must be the one
    a fresh parse gives, and a changed text (same size, same time stamp) is another key."""
    f = tmp_path / ".agent-guard.yaml"
    f.write_text("checks:\n  placeholder: warning\n")
    memo = policy.load(tmp_path, agent="a")
    assert policy.load(tmp_path, agent="a") is memo  # the same texts: the memo's answer
    policy._settings.cache_clear()
    policy._BUILT.clear()
    fresh = policy.load(tmp_path, agent="a")
    assert fresh is not memo and fresh == memo and fresh.sources == memo.sources
    st = f.stat()
    f.write_text("checks:\n  placeholder: error  \n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert policy.load(tmp_path, agent="a").level("placeholder") == "error"
    assert policy.load(tmp_path, agent="b").agent == "b"


def test_what_one_policy_merges_never_reaches_another(tmp_path: Path) -> None:
    """The presets' parsed texts are shared by every policy built on them: a layer that fills an
    empty mapping of its base (`exclude: {}` in `default`) must not fill the base's own."""
    f = tmp_path / ".agent-guard.yaml"
    f.write_text("exclude: {budget: ['vendor/**']}\n")
    assert policy.load(tmp_path).get("exclude") == {"budget": ["vendor/**"]}
    assert policy.load(None, "default").get("exclude") in ({}, None)
