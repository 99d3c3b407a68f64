def add(a, b):
    return a + b


def twice(x):
    return add(x, x)
