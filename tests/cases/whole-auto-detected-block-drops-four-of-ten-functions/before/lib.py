def f0(x):
    """Add 0."""
    return x + 0


def f1(x):
    """Add 1."""
    return x + 1


def f2(x):
    """Add 2."""
    return x + 2


def f3(x):
    """Add 3."""
    return x + 3


def f4(x):
    """Add 4."""
    return x + 4


def f5(x):
    """Add 5."""
    return x + 5


def f6(x):
    """Add 6."""
    return x + 6


def f7(x):
    """Add 7."""
    return x + 7


def f8(x):
    """Add 8."""
    return x + 8


def f9(x):
    """Add 9."""
    return x + 9
