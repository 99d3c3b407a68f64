"""What works on turns already made: the log, rollback, pruning, shell turns, the footprint, stats."""
