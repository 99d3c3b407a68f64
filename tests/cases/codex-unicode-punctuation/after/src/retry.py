def retry(fn, times=3):
    # Try again, at most `times` times.
    for _ in range(times):
        if fn():
            return True
    return False
