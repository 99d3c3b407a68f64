def a(x):
    y = x + 1
    z = y * 2
    return z


def b(x):
    y = x + 1
    z = y * 3
    return z


def c(x, y):
    z = y * 2
    y = x + 1
    return z
