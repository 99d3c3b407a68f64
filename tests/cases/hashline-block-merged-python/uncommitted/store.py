import functools
import sys


@functools.lru_cache(maxsize=None)
def parse(text):
    parts = text.split(",")
    return [p.strip() for p in parts]


class Store:
    def __init__(self):
        self.items = {}

    def get(self, key):
        if key in self.items:
            return self.items[key]
        return None

    def put(self, key, value):
        self.items[key] = value
