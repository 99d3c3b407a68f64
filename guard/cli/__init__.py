"""The command line: the only package that reads argv and prints.

- ``program``: the console scripts and ``python -m guard``: one command, then a quick exit.
- ``commands``: the click group `agent-guard`, the table of its commands (pip's
  ``commands_dict``: each command's module, imported only when the command runs) and
  ``main``.
- ``apply``, ``check``, ``turns``, ``policy``, ``read``, ``remote``, ``adapters``, ``stats``,
  ``run``, ``install``, ``serve``: the commands, plain click commands that import ``base``
  (what they share) and never the group.
- ``failure``: exceptions become exit statuses here, and only here.
- ``terminal``: colour, the pager and progress, decided at the edge.

One other program reads its own argv: guard/warm/hook.py, the warm hook's small command, which
must start without this package (it becomes `hook claude-code` when no server answers).
"""
