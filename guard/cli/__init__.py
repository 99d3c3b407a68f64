"""The command line: the only package that reads argv and prints.

- ``program``: the console scripts and ``python -m guard``: one command, then a quick exit.
- ``fast``: a plain `apply`, `check` or `hook claude-code` read and run without click (every
  edit, hook call and commit runs one), from ``options``, where their options are declared once
  and the click commands are made from.
- ``commands``: the click group `agent-guard` and its commands; ``check``, ``read``,
  ``stats``, ``adapters`` and ``serve`` hold the others, imported only when named.

One other program reads its own argv: guard/warm/hook.py, the warm hook's small command, which
must start without this package (it becomes `hook claude-code` when no server answers).
- ``failure``: exceptions become exit statuses here, and only here.
"""
