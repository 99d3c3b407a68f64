import os


def helper():
    return os.path.sep


class Store:
    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
