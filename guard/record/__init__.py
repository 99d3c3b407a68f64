"""Turns: staged as commits on the agent's ledger ref, read back, rolled back, shared between clones;
shell commands' turns; what agent-guard keeps for a repository.
"""
