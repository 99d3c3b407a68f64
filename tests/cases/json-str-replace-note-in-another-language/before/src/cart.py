"""Shopping cart totals."""


def total(items):
    """Sum the prices of the items."""
    count = 0
    for item in items:
        count += item.price
    log.debug("total %s", count)
    return count


def empty(items):
    return not items
