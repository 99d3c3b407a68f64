import os




def main():
    print(helper("/tmp/x"))
