import os


def load(path):
    # read config
    with open(path) as fh:
        data = fh.read()
    return data


def save(path, data):
    with open(path, "w") as fh:
        fh.write(data)
