# deprecated
def old():
    pass


def older():
    pass
