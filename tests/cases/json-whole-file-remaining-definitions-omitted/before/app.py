def f0():
    return 0


def f1():
    return 1


def f2():
    return 2


def f3():
    return 3


def f4():
    return 4


def f5():
    return 5


def f6():
    return 6


def f7():
    return 7


def f8():
    return 8


def f9():
    return 9


def f10():
    return 10


def f11():
    return 11


def f12():
    return 12


def f13():
    return 13


def f14():
    return 14


def f15():
    return 15


def f16():
    return 16


def f17():
    return 17


def f18():
    return 18


def f19():
    return 19


def f20():
    return 20


def f21():
    return 21


def f22():
    return 22


def f23():
    return 23


def f24():
    return 24


def f25():
    return 25


def f26():
    return 26


def f27():
    return 27


def f28():
    return 28


def f29():
    return 29


if __name__ == '__main__':
    f0()
