class Matrix:
    def __init__(self, rows):
        self.rows = rows

    operator = staticmethod(lambda a, b: a * b)

    def size(self):
        return len(self.rows)
