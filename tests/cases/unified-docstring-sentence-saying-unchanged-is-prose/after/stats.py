def total(items):
    """Sum the items.

    Strings are returned unchanged.
    """
    return sum(items, 0)
