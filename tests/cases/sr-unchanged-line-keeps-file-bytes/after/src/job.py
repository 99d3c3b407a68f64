def job():
    x = compute(retries=3)
    y = x * 2	
    return y
