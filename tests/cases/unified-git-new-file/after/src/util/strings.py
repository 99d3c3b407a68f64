def shout(text):
    return text.upper() + "!"


__all__ = ["shout"]
