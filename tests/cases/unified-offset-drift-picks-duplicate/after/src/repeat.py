def first():
    return 10


def handler():
    value = fetch()
    return value


def handler():
    value = fetch()
    return value or None


def last():
    return 9
