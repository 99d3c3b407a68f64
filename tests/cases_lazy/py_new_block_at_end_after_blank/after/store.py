a = 1
b = 2


def main():
    print(a + b)
