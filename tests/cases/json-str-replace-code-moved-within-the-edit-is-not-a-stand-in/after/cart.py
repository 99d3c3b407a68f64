def total(items):
    count = 0
    for item in items:
        # the per-item price is line_price() below
        count += line_price(item)
    return count


def line_price(item):
    if item.price is None:
        return 0
    return item.price * item.quantity
