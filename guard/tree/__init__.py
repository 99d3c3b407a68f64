"""The work tree: read and written under the repository lock, all or nothing; a change's diff."""
