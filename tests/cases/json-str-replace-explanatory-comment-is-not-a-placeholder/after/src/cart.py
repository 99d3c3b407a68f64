"""Shopping cart totals."""


def total(items):
    """Sum the prices of the items."""
    # sum the prices with the builtin; unchanged items keep their price
    count = sum(item.price for item in items)
    log.debug("total %s", count)
    return count


def empty(items):
    return not items
