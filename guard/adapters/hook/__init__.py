"""The parts of an agent hook (``guard.adapters.claude_code``, ``codex``, ``gemini``, ``copilot``,
``cursor``: the entry points).

- ``answer``: what the hook says back (exit status, standard output and error), and its failures.
- ``payload``: what Claude Code sends (the call), and where the file it names lives.
- ``stash``: the record the pre hook of a file tool leaves for its post hook.
- ``pre_edit``, ``post_edit``: a file tool's PreToolUse (check) and PostToolUse (record), and Read.
- ``command``: a command (Bash, or any tool the matcher names) as a turn of each repository it changes.
"""
