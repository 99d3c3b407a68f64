value = compute(1, 2)
