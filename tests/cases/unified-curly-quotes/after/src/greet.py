import sys


def greet(name):
    print("Hi, " + name)


def main():
    greet(sys.argv[1])


if __name__ == "__main__":
    main()
