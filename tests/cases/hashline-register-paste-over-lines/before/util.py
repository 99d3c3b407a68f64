"""Utilities."""


def other():
    return 2
