"""The warm hook command: ``python -SI <this file> [hook claude-code options]``.

It is `agent-guard hook claude-code`, asked of the user's `agent-guard serve` when one runs
(``client``), and that command itself when none does.  ``-S`` skips site (the venv's .pth
files cost more than the whole call), ``-I`` keeps this folder, the current folder and
PYTHON* variables off the import path: what runs is the standard library and ``client.py``,
imported from this folder (so that its bytecode is cached; this stub is compiled every time).
`agent-guard serve --settings` prints the line for Claude Code's settings.
"""

import sys
import time


def _run() -> None:
    started = time.monotonic()
    here = __file__.rpartition("/")[0] or "."
    sys.path.insert(0, here)
    import client  # type: ignore[import-not-found]  # guard/warm/client.py, as a top-level module

    client.main(sys.argv[1:], started)


if __name__ == "__main__":
    _run()
