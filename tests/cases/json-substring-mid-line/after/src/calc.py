"""Small arithmetic helpers."""


def add(a, b):
    return a + b


def sub(a, b):
    return b - a


def mul(a, b):
    return a * b
