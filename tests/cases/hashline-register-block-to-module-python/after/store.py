import functools


@functools.lru_cache(maxsize=None)
def parse(text):
    parts = text.split(",")
    return [p.strip() for p in parts]
def get(self, key):
    if key in self.items:
        return self.items[key]
    return None


class Store:
    def __init__(self):
        self.items = {}


    def put(self, key, value):
        self.items[key] = value
