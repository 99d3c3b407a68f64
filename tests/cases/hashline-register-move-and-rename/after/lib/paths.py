"""Utilities."""


def helper(path):
    return os.path.basename(path)
def other():
    return 2
