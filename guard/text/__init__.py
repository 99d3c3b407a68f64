"""Bytes as text: lines and their terminators, line endings, look-alike letters, line hashes, and the
words messages are made of.
"""
