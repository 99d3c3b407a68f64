import functools


def parse(text, sep=","):
    return [p.strip() for p in text.split(sep)]


class Store:
    def __init__(self):
        self.items = {}

    def get(self, key):
        if key in self.items:
            return self.items[key]
        return None

    def put(self, key, value):
        self.items[key] = value
