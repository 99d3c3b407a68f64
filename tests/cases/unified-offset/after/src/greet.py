import sys


def greet(name):
    print("Hello, " + name)


def main():
    for name in sys.argv[1:]:
        greet(name)


if __name__ == "__main__":
    main()
