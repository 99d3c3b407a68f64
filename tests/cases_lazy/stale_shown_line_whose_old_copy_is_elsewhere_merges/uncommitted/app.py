class A:
    def __init__(self, flist=None):
        self.flist = flist
        self.stack = []


class B:
    def __init__(self, info, flist):
        self.info = info
        self.flist = flist  # changed since

    def text(self):
        frame, lineno = self.info
        return frame
