"""Source languages parsed for the `syntax` check: ``languages`` (every language it knows)
and ``python`` (Python edit by edit).  Not to be confused with the edit dialects
(``guard.dialects``): these parse the files an edit changes, not the edit."""
