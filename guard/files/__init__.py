"""The file an edit targets: its path resolved and vetted, what it is, what may not be touched or
shown, and the change worked out.
"""
