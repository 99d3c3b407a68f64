"""A new module."""


def answer():
    return 42
