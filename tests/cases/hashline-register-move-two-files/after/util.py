"""Utilities."""


def other():
    return 2
def helper(path):
    return os.path.basename(path)
