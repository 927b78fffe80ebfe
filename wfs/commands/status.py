"""`wfs status`, `wfs next` and `wfs prime`: where the active session stands and what comes next.

What they print is worded in wfs/query.py, which the MCP server shares.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from wfs import actions
from wfs import prime as digests
from wfs.cli import Env, pass_env, refuse_unreadable, root_option
from wfs.errors import NotAProjectError, WfsError
from wfs.plans import plan_lines
from wfs.query import next_lines, status_lines
from wfs.sessions import no_session_message


@click.command()
@pass_env
def status(env: Env) -> None:
    """Show the active session: phase, type, task counts, progress, ready and blocked tasks.

    Maestro-Flow plans follow, each with its tasks counted (`wfs execute --all` runs
    them when no wfs session is active).

    \b
    Example:
      wfs status --json
    """
    summary = actions.status(env.layout, env.session, root_option(env))
    maestro = plan_lines(summary.get("maestro", []), summary["session"] is not None)
    if summary["session"] is None:
        unfinished = summary.get("unfinished", [])
        if unfinished:
            told = no_session_message(env.layout, unfinished)
            text = [told[0].upper() + told[1:], *maestro]
        else:
            text = ["No active session.", *maestro]
        env.emit(summary, lambda: env.lines(text))
        return

    def human() -> None:
        env.lines(status_lines(summary, lambda t: env.style(t, bold=True)))
        env.lines(maestro)

    env.emit(summary, human)
    for warning in summary.get("warnings", []):
        env.echo(f"wfs: warning: {warning}", err=True)
    refuse_unreadable(env, summary.get("unreadable"))
    stop_if_stalled(summary)


@click.command("next")
@click.option("--all", "all_ready", is_flag=True, help="Every ready task, not just the first.")
@pass_env
def next_task(env: Env, all_ready: bool) -> None:
    """Show the next ready leaf task (lowest id whose dependencies are completed).

    \b
    Example:
      wfs next --all --json
    """
    data, unreadable = actions.next_tasks(env.layout, env.session, all_ready, root_option(env))
    if data["session"] is None:  # no session: the Maestro-Flow plans, with their ready tasks
        env.emit(data, lambda: env.lines(plan_lines(data["maestro"], False)))
        return
    env.emit(data, lambda: env.lines(next_lines(data)))
    refuse_unreadable(env, unreadable)
    stop_if_stalled(data)


def stop_if_stalled(facts: dict[str, Any]) -> None:
    """Exit 1 when work remains that nothing can start: a plan that cannot go on is a
    finding, not "nothing to do"."""
    if facts.get("stalled"):
        click.get_current_context().exit(1)


@click.command()
@click.option(
    "--hook-json",
    is_flag=True,
    help="Print it as the output of an editor's SessionStart hook (JSON).",
)
@click.option(
    "--editor",
    type=click.Choice(digests.EDITORS),
    help="With --hook-json: the editor running the hook (default: claude).",
)
@pass_env
def prime(env: Env, hook_json: bool, editor: str | None) -> None:
    """Print a short digest of the active session for an agent's context.

    Phase, progress, the next ready task and the command that runs it, the blocked and
    paused tasks with their resume commands, and the ground rules; at most 1,500
    characters. With --hook-json, the same text in the JSON a SessionStart hook of
    Claude Code, Gemini CLI, Codex CLI, Qwen Code, Copilot CLI, Devin or Cursor prints,
    and a plan that cannot be read is reported in the text instead of failing the hook.

    \b
    Example:
      wfs prime
      wfs prime --hook-json --editor gemini
    """
    if editor is not None and not hook_json:
        raise click.UsageError("--editor goes with --hook-json")
    if not hook_json:
        sid, text = actions.prime(env.layout, env.session)
        env.emit(digests.json_data(sid, text), lambda: click.echo(text, nl=False))
        return
    try:
        text = actions.prime(env.layout, env.session)[1]
    except NotAProjectError as err:
        text = digests.no_project_text(err.message)
    except WfsError as err:
        text = digests.error_text(err.message)
    sys.stdout.buffer.write(digests.hook_json(text, editor or "claude"))
    sys.stdout.flush()
