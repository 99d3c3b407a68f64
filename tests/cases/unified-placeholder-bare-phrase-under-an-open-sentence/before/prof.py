def run(cmd):
    """Run a command and profile it.

    This function takes a single argument that can be passed to the
    "exec" statement, and an optional file name.  In all cases this
    routine attempts to "exec" its first argument and gather profiling
    statistics from the execution.  If no file name is present, then it
    prints a simple profiling report.
    """
    return cmd
