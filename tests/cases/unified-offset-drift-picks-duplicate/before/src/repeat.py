def first():
    return 1


def handler():
    value = fetch()
    return value


def handler():
    value = fetch()
    return value


def last():
    return 9
