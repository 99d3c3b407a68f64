"""The click command `run`: a command's changes to the work tree as one turn, checked.

``agent-guard run [--agent NAME] -- CMD ARGS...`` snapshots the work tree, runs the
command with the terminal as it is (its standard input, output and error are the
command's own), then records what it changed as one turn of the agent and checks it
(``guard.record.shell``), by the policy as it was before the command: one the command
rewrites judges nothing.  Its exit status is the command's, unless the checks found an error:
then 1 (with ``shell.on_violation: revert`` the change was also rolled back).  The
report goes to standard error, or as JSON to ``--report FILE``.  A command that cannot be
started exits as a shell's would (127 not found, 126 not runnable), and nothing is recorded.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

import click

from .base import CONTEXT, open_guard

if TYPE_CHECKING:
    from ..report import Report


@click.command("run", context_settings={**CONTEXT, "ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--agent", default=None, metavar="NAME", help="Whose turn (default: $AGENT_GUARD_AGENT, else agent).")
@click.option("--turn", default=None, metavar="ID", help="Continue the agent's turn ID (default: a new turn).")
@click.option("--policy", default=None, metavar="NAME|PATH", help="Policy preset or file (default: .agent-guard.yaml).")
@click.option(
    "--report",
    "report_file",
    default=None,
    type=click.Path(dir_okay=False, writable=True),
    help="Also write the turn's JSON report (the shape of `apply --json`) to FILE.",
)
@click.option("-q", "--quiet", is_flag=True, help="Say nothing when the command changed nothing the policy minds.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run_cmd(
    agent: str | None, turn: str | None, policy: str | None, report_file: str | None, quiet: bool, command: tuple[str, ...]
) -> None:
    """Use `--` before the command: agent-guard run --agent aider -- aider --yes-always.
    The changes are checked as an edit is; the exit status is the command's, or 1 when
    the policy refuses what it did (with shell.on_violation: revert, it is also undone).
    """
    from ..pipeline.engine import default_agent, default_turn
    from ..record import snapshot
    from ..report import Report
    from ..report.render import human
    from ..turns import shell
    from ..turns.hint import undo_command

    g = open_guard(policy)
    who = default_agent(agent)
    tid = default_turn(turn)
    before = shell.begin(g, who)  # the work tree and the policy the command is judged by
    status, why = _run(command)
    if why is not None:
        # Nothing ran: what changed meanwhile is not the command's, so nothing is recorded or logged.
        snapshot.discard(before.snapshot)
        said = f"{command[0]}: {why}; nothing ran and no turn was recorded"
        _write_report(report_file, Report("applied", shell.DIALECT, notes=(said,)))
        sys.stderr.write(f"agent-guard run: {said}\n")
        sys.exit(status)
    done = shell.finish(g, before, agent=who, turn=tid, tool="run", command=" ".join(command))
    report = done.report
    _write_report(report_file, report)
    failed = report.status == "refused"
    if not quiet or failed or report.findings:
        text = human(report)
        if failed:
            text += (
                "\nagent-guard: the command's changes were reverted, and nothing else (shell.on_violation: revert)"
                if done.reverted
                else "\nagent-guard: the command's changes stay: shell.on_violation is revert, but they could not be "
                "rolled back (see above)"
                if shell.on_violation(before.policy) == "revert"
                else f"\nagent-guard: the command's changes stay (shell.on_violation: warn); `{undo_command(who)}` undoes them"
                if report.turn is not None
                else "\nagent-guard: the command's changes stay (shell.on_violation: warn); none of them is a turn, so "
                "there is nothing for a rollback to undo"
            )
        sys.stderr.write(text + "\n")
    sys.exit(1 if failed else status)


def _write_report(report_file: str | None, report: Report) -> None:
    if not report_file:
        return
    try:
        with open(report_file, "w", encoding="utf-8") as out:
            json.dump(report.as_dict(), out)
    except OSError as exc:
        raise click.UsageError(f"cannot write {report_file}: {exc.strerror}") from None


def _run(command: tuple[str, ...]) -> tuple[int, str | None]:
    """Run the command as the user's shell would: its exit status (128 + N for a signal), and None;
    or, when it cannot be started, the shell's status (127 not found, 126 not runnable) and why.
    An interrupt goes to the command, and agent-guard still records."""
    try:
        proc = subprocess.Popen(list(command))
    except FileNotFoundError:
        return 127, "command not found"
    except OSError as exc:
        return 126, exc.strerror or str(exc)
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:
            continue  # the terminal sent the interrupt to the command too: wait for it to end
    return (128 - code if code < 0 and -code in signal.valid_signals() else code), None
