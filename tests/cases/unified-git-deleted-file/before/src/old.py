# deprecated
def old():
    pass
