"""The click command `run`: a command's changes to the work tree as one turn, checked.

``agent-guard run [--agent NAME] -- CMD ARGS...`` snapshots the work tree, runs the
command with the terminal as it is (its standard input, output and error are the
command's own), then records what it changed as one turn of the agent and checks it
(``guard.record.shell``), by the policy as it was before the command: one the command
rewrites judges nothing.  Its exit status is the command's, unless the checks found an error:
then 1 (with ``shell.on_violation: revert`` the change was also rolled back).  The
report goes to standard error, or as JSON to ``--report FILE``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import click

from .base import CONTEXT, open_guard


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
    from ..report.render import human
    from ..turns import shell
    from ..turns.hint import undo_command

    g = open_guard(policy)
    who = default_agent(agent)
    tid = default_turn(turn)
    before = shell.begin(g, who)  # the work tree and the policy the command is judged by
    status = _run(command)
    done = shell.finish(g, before, agent=who, turn=tid, tool="run", command=" ".join(command))
    report = done.report
    if report_file:
        try:
            with open(report_file, "w", encoding="utf-8") as out:
                json.dump(report.as_dict(), out)
        except OSError as exc:
            raise click.UsageError(f"cannot write {report_file}: {exc.strerror}") from None
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
            )
        sys.stderr.write(text + "\n")
    sys.exit(1 if failed else status)


def _run(command: tuple[str, ...]) -> int:
    """Run the command as the user's shell would, and its exit status (128 + N for a signal, 127 when
    it cannot be started); an interrupt goes to the command, and agent-guard still records."""
    try:
        proc = subprocess.Popen(list(command))
    except FileNotFoundError:
        sys.stderr.write(f"agent-guard run: {command[0]}: command not found\n")
        return 127
    except OSError as exc:
        sys.stderr.write(f"agent-guard run: {command[0]}: {exc.strerror}\n")
        return 126
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:
            continue  # the terminal sent the interrupt to the command too: wait for it to end
    return 128 - code if code < 0 and -code in signal.valid_signals() else code
