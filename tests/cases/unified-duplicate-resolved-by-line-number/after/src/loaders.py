def load_a():
    data = read("a")
    check(data)
    return data


def load_b():
    data = read("b")
    check(data)
    return list(data)
