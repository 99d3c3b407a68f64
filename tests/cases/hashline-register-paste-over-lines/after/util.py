import os


def other():
    return 2
