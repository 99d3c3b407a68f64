"""Exceptions that become exit statuses at the edge (``cli.program.run``, ``cli.failure``)."""


class UsageError(Exception):
    """Bad invocation (unknown ref, bad policy, not a repository): exit status 2."""
