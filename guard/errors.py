"""Exceptions that become exit statuses at the edge (``cli.main``)."""


class UsageError(Exception):
    """Bad invocation (unknown ref, bad policy, not a repository): exit status 2."""
