"""Inventory helpers."""

import os


class Inventory:
    def __init__(self, items):
        self.items = list(items)
        self.count = len(self.items)

    def add(self, item):
        self.items.append(item)
        self.count += 1
        return self.count

    def remove(self, item):
        self.items.remove(item)
        self.count -= 1
        return self.count


def load(path):
    with open(path) as fh:
        lines = fh.read().splitlines()
    return Inventory(lines)


def main():
    inv = load(os.environ["INVENTORY"])
    print(inv.count)
