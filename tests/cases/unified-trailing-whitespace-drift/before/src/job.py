def job():
    x = compute()  
    y = x * 2	
    return y
