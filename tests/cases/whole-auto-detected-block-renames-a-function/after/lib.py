def f0(x):
    """Add 0."""
    return x + 0


def f1(x):
    """Add 1."""
    return x + 1


def plus_two(x):
    """Add 2."""
    return x + 2


def f3(x):
    """Add 3."""
    return x + 3
