import os


def main():
    print(helper("/tmp/x"))
def helper(path):
    return os.path.basename(path)


