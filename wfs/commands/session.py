"""`wfs session list|show|pause|resume|complete`: the lifecycle of sessions."""

from __future__ import annotations

import click

from wfs import actions
from wfs.cli import Env, pass_env
from wfs.completion import complete_session_id
from wfs.errors import WfsError
from wfs.plans import plan_lines
from wfs.query import one_line


@click.group()
def session() -> None:
    """Session lifecycle: list, show, pause, resume, complete.

    \b
    Example:
      wfs session list
    """


@session.command("list")
@pass_env
def session_list(env: Env) -> None:
    """List every session with its status; `*` marks the active one.

    Maestro-Flow plans follow (every layout: sessions/, scratch/, milestones/,
    .lite-plan/, quick tasks), each with its tasks counted and the wfs session imported
    from it, if any.

    \b
    Example:
      wfs session list --json
    """
    rows, errors, maestro = actions.session_list(env.layout)

    def human() -> None:
        if not rows and not maestro:
            env.echo("No sessions. Create one with: wfs plan TOPIC")
        for row in rows:
            mark = "*" if row["active"] else " "
            if "error" in row:
                env.echo(f"{mark} {row['id']}  (unreadable)")
            else:
                status, kind, project = (one_line(row[k]) for k in ("status", "type", "project"))
                env.echo(f"{mark} {row['id']}  {status}  {row['phase']}  {kind}  {project}")
        env.lines(plan_lines(maestro, any(row["active"] for row in rows)))

    env.emit({"sessions": rows, "maestro": maestro} if maestro else {"sessions": rows}, human)
    if errors:
        raise WfsError("\n".join(errors))


@session.command("show")
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
@pass_env
def session_show(env: Env, session_id: str | None) -> None:
    """Show one session (default: the active one) with its task counts.

    \b
    Example:
      wfs session show user-auth-system
    """
    data, summary = actions.session_show(
        env.layout, session_id if session_id is not None else env.session
    )

    def human() -> None:
        sid = summary["session"]
        env.echo(f"{sid}{'  (active)' if data['active'] else ''}")
        env.echo(f"  path:    {data['path']}")
        shown = {
            "project": summary["project"],
            "status": summary["status"],
            "current_phase": summary["phase"],  # derived when the file has none
            "type": summary["type"],
        }
        for key, value in shown.items():
            env.echo(f"  {key + ':':<9}{one_line(value)}")
        env.echo("  tasks:   " + ", ".join(f"{k} {v}" for k, v in data["counts"].items()))

    env.emit(data, human)


def _lifecycle(env: Env, action: str, session_id: str | None) -> None:
    data = actions.change_session(
        env.layout, action, session_id if session_id is not None else env.session
    )
    env.emit(data, lambda: env.echo(f"{data['session']}: {data['status']}"))


@session.command("pause")
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
@pass_env
def session_pause(env: Env, session_id: str | None) -> None:
    """Pause a session (default: the active one) and remove its active marker.

    \b
    Example:
      wfs session pause
    """
    _lifecycle(env, "pause", session_id)


@session.command("resume")
@click.argument("session_id", metavar="ID", shell_complete=complete_session_id)
@pass_env
def session_resume(env: Env, session_id: str) -> None:
    """Resume session ID: it becomes the single active session (like `wfs switch`).

    \b
    Example:
      wfs session resume user-auth-system
    """
    _lifecycle(env, "resume", session_id)


@session.command("complete")
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
@pass_env
def session_complete(env: Env, session_id: str | None) -> None:
    """Mark a session (default: the active one) completed and remove its marker.

    \b
    Example:
      wfs session complete
    """
    _lifecycle(env, "complete", session_id)
