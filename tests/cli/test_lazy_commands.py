"""Commands declared once (``cli.commands.LAZY``): the summary `agent-guard --help` lists before a
command's module is imported is the one its own help starts with, after."""

from __future__ import annotations

import subprocess
import sys

from conftest import checkout_env


def test_each_lazy_command_says_its_summary_once() -> None:
    from guard.cli.commands import LAZY, _load_more, cli

    _load_more()
    for name, (module, summary) in LAZY.items():
        cmd = cli.commands[name]
        assert cmd.callback is not None and cmd.callback.__module__ == module, name
        assert cmd.short_help == summary, name
        assert (cmd.help or "").split("\n")[0] == summary, name
    # Every command registered from a lazy module is one LAZY declares.
    lazy_modules = {module for module, _ in LAZY.values()}
    for name, cmd in cli.commands.items():
        if cmd.callback is not None and cmd.callback.__module__ in lazy_modules:
            assert name in LAZY, name


def test_the_listing_is_the_same_before_and_after_the_commands_load() -> None:
    code = (
        "import sys\nfrom guard.cli.commands import _load_more, main\n"
        "if sys.argv[1] == 'loaded':\n    _load_more()\n"
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
