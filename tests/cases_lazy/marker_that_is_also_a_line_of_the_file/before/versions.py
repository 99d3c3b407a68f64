def versions():
    """Releases in order:

    # 1.0.0
    # ...
    # 1.0.9
    # 1.1.0
    """
    return ["1.0.0", "1.0.9", "1.1.0"]


def latest():
    return versions()[-1]
