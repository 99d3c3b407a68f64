"""The warm path for agent hooks: a long-lived `agent-guard serve` answers them, so a hook call
does not pay for starting Python, pygit2 and the guard every time.

- ``client``: what a hook process does: find the user's server, ask it, or say that it must do
  the work itself (the cold path).  Built-in modules only, so that it can also run as
  ``python -SI <package>/warm/hook.py`` (``hook``) in the interpreter's floor time.
- ``server``: `agent-guard serve`: the user's socket, worker processes kept warm that answer the
  calls one at a time, and the optional ``http`` hook form on 127.0.0.1 (``httpform``).
- ``control``: a command asking the running server (`serve --status`, `--stop`), or starting one
  in the background (`--detach`).
- ``started``: the server a hook started (``client.start_server``, for ``hook.py --start-server``,
  the command `agent-guard install claude-code` writes): `serve --idle-exit`, its starts noted.

Nothing in this folder may share a name with a module of Python's standard library: ``hook``
puts the folder itself on the import path (``tests/warm/test_client.py`` checks it).
"""
