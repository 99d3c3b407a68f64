"""What the agent read: hashline tags and read-before-edit, the reads on record, blocks and registers,
and `git agent-read` itself.
"""
