"""The file system as agent-guard reads it: regular files only, and the repository found from a folder."""
