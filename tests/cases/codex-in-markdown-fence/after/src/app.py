import os
import sys


class Config:
    def __init__(self):
        self.debug = os.environ.get("DEBUG") == "1"

    def load(self):
        self.loaded = True


class Server:
    def __init__(self, config):
        self.config = config

    def load(self):
        self.loaded = True

    def run(self):
        print("serving")
