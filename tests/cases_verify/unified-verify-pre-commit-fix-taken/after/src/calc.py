def add(a, b):
    return a + b


def twice(x):
    return x + x
