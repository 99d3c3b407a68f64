import os


def helper(path):
    return os.path.basename(path) or path


def main():
    print(helper("/tmp/x"))
