"""Small arithmetic helpers."""


def add(a, b):
    return a + b


def sub(a, b):
    if b > a:
        raise ValueError("negative")
    return a - b


def mul(a, b):
    return a * b
