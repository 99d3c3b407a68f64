import os


def helper(path):
    return os.path.basename(path)


def main():
    print(helper("/tmp/x"))
