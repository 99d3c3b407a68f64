def a():
    x = 1
    return x


def b():
    x = 1
    y = 2
    return x + y
