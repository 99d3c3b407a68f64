def first(xs):
    if not xs:
        return None
    return xs[0]


def last(xs):
    if not xs:
        return None
    return xs[-1]
