"""Commands declared once (``cli.commands.COMMANDS``): the summary `agent-guard --help` lists before a
command's module is imported is the one its own help starts with, after; and a command that runs
imports its own module, not the others'."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from conftest import checkout_env


def test_each_command_says_its_summary_once() -> None:
    from guard.cli.commands import COMMANDS, cli, load_all

    load_all()
    assert sorted(cli.commands) == sorted(COMMANDS)
    for name, (module, attr, summary) in COMMANDS.items():
        cmd = cli.commands[name]
        assert cmd is getattr(importlib.import_module(module), attr), name
        assert cmd.short_help == summary, name
        assert (cmd.help or "").split("\n")[0] == summary, name
        assert cmd.callback is not None and summary not in (cmd.callback.__doc__ or ""), name  # said once


def test_the_listing_is_the_same_before_and_after_the_commands_load() -> None:
    code = (
        "import sys\nfrom guard.cli.commands import load_all, main\n"
        "if sys.argv[1] == 'loaded':\n    load_all()\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
    )
    out = [
        subprocess.run(
            [sys.executable, "-c", code, how],
            capture_output=True,
            text=True,
            timeout=120,
            env=checkout_env({"COLUMNS": "200"}),
            check=True,
        ).stdout
        for how in ("cold", "loaded")
    ]
    assert "Commands:" in out[0] and out[0] == out[1]


def test_a_command_imports_its_own_module_only() -> None:
    code = (
        "import json, sys\nfrom guard.cli.commands import COMMANDS, main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "modules = {m for m, _, _ in COMMANDS.values()}\n"
        "print(json.dumps(sorted(m for m in modules if m in sys.modules)))\n"
    )
    for args, loaded in (
        (["--help"], []),
        (["apply", "--help"], ["guard.cli.apply"]),
        (["policy", "list", "--help"], ["guard.cli.policy"]),
        (["hook", "claude-code", "--help"], ["guard.cli.adapters"]),
    ):
        r = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env=checkout_env(), check=True
        )
        assert json.loads(r.stdout.strip().splitlines()[-1]) == loaded, (args, r.stdout, r.stderr)
