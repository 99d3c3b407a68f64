def total(items):
    count = 0
    for item in items:
        if item.price is None:
            continue
        count += item.price * item.quantity
    return count
