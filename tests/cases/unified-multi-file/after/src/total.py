from .calc import add

TOTAL = add(1, 2)
