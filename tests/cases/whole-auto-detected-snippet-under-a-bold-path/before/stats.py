def total(items):
    """Sum the items.

    Each item must be a number; strings raise TypeError.
    Empty input gives 0.
    See also mean().
    """
    return sum(items)
def total(items):
    """Sum the items.

    Each item must be a number; strings raise TypeError.
    Empty input gives 0.
    See also mean().
    """
    return sum(items)
def total(items):
    """Sum the items.

    Each item must be a number; strings raise TypeError.
    Empty input gives 0.
    See also mean().
    """
    return sum(items)
def total(items):
    """Sum the items.

    Each item must be a number; strings raise TypeError.
    Empty input gives 0.
    See also mean().
    """
    return sum(items)
