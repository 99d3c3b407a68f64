VERSION = "1.2.0"


def version():
    return VERSION
