def retry(fn, times=3):
    # Try again - but not "forever".
    for _ in range(times):
        if fn():
            return True
    return False
