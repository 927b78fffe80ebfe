"""The `wfs` command line: parse options, call the library, print the result.

Library modules are imported inside the commands so that `wfs --help` and the quick
read commands start fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from wfs import __version__
from wfs.errors import WfsError

F = TypeVar("F", bound=Callable[..., Any])


class Env:
    """What every command needs: the project, the chosen session, output settings."""

    def __init__(self, root: str | None, session: str | None, json: bool, color: bool) -> None:
        self._root = root
        self.session = session
        self.json = json
        self.color = color
        self._layout: Any = None

    @property
    def layout(self) -> Any:
        if self._layout is None:
            from wfs.layout import Layout, find_root

            self._layout = Layout(find_root(self._root))
        return self._layout

    def current_session(self) -> str:
        from wfs.sessions import current_session

        return current_session(self.layout, self.session)

    def echo(self, text: str = "", *, err: bool = False) -> None:
        # None lets click drop styles when the stream is not a terminal.
        click.echo(text, err=err, color=None if self.color else False)

    def style(self, text: str, **styles: Any) -> str:
        return click.style(text, **styles) if self.color else text

    def emit(self, data: Any, human: Callable[[], None]) -> None:
        """Print `data` as JSON with --json, else run the human formatter."""
        if self.json:
            import orjson

            sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
            sys.stdout.flush()
        else:
            human()


def _color_default() -> bool:
    return "NO_COLOR" not in os.environ


pass_env = click.make_pass_decorator(Env)


class WfsGroup(click.Group):
    """Turns library errors into a one-line message and the spec's exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WfsError as err:
            click.echo(f"wfs: error: {err.message}", err=True)
            ctx.exit(err.exit_code)


@click.group(cls=WfsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="wfs")
@click.option(
    "--root",
    envvar="WFS_ROOT",
    metavar="DIR",
    help="Project root (default: nearest ancestor holding .workflow/, else the current "
    "directory). Env: WFS_ROOT.",
)
@click.option("--session", "session", envvar="WFS_SESSION", metavar="ID",
              help="Session to work on (default: the active one). Env: WFS_SESSION.")
@click.option("--json", "json_out", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--no-color", is_flag=True, help="No colors (also when NO_COLOR is set).")
@click.pass_context
def cli(ctx: click.Context, root: str | None, session: str | None, json_out: bool,
        no_color: bool) -> None:
    """wfs: workflow sessions for people and AI coding agents.

    A plan lives in .workflow/WFS-*/ as task JSON files, the single source of truth;
    TODO_LIST.md and IMPL_PLAN.md are generated from them.

    \b
    Example:
      wfs plan "User Auth System" --from plan.json
      wfs status
    """
    ctx.obj = Env(root, session, json_out, color=_color_default() and not no_color)


# `--json` is also accepted after the subcommand (`wfs status --json`).
def _set_json_env(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        env = ctx.find_object(Env)
        if env is not None:
            env.json = True


def json_flag(func: F) -> F:
    return click.option(
        "--json",
        "json_flag",
        is_flag=True,
        expose_value=False,
        callback=_set_json_env,
        help="Machine-readable output on stdout.",
    )(func)


# ---------------------------------------------------------------- init


@cli.command()
@json_flag
@pass_env
def init(env: Env) -> None:
    """Create .workflow/ and its .gitignore here; safe to run again.

    \b
    Example:
      wfs init
    """
    from wfs.sessions import init as do_init

    layout = env.layout
    created = do_init(layout)
    env.emit(
        {"root": str(layout.root), "workflow": layout.relative(layout.workflow), "created": created},
        lambda: env.echo(
            f"{'Initialized' if created else 'Already initialized'} {layout.workflow}"
        ),
    )


# ---------------------------------------------------------------- plan / switch


@cli.command()
@click.argument("topic")
@click.option("--type", "session_type", type=click.Choice(["simple", "medium", "complex"]),
              help="Complexity to start from (it is only ever raised).")
@json_flag
@pass_env
def plan(env: Env, topic: str, session_type: str | None) -> None:
    """Create a session for TOPIC and make it the only active one.

    Prints the new session id, e.g. WFS-user-auth-system.

    \b
    Example:
      wfs plan "User Auth System"
    """
    from wfs.sessions import create_session

    sid = create_session(env.layout, topic, session_type)
    path = env.layout.relative(env.layout.session_dir(sid))
    env.emit({"session": sid, "path": path, "tasks": 0}, lambda: env.echo(sid))


@cli.command()
@click.argument("session_id", metavar="ID")
@json_flag
@pass_env
def switch(env: Env, session_id: str) -> None:
    """Make session ID (WFS-x or x) the single active session.

    Previously active sessions become paused.

    \b
    Example:
      wfs switch user-auth-system
    """
    from wfs.sessions import active_ids, switch as do_switch

    before = active_ids(env.layout)
    sid = do_switch(env.layout, session_id)
    paused = [s for s in before if s != sid]
    env.emit(
        {"session": sid, "status": "active", "paused": paused},
        lambda: env.echo(f"Active session: {sid}"
                         + (f" (paused {', '.join(paused)})" if paused else "")),
    )


# ---------------------------------------------------------------- status


def _session_summary(layout: Any, sid: str) -> dict[str, Any]:
    from wfs.sessions import load_session
    from wfs.tasks import TaskIndex, load_tasks

    data = load_session(layout, sid)
    index = TaskIndex(load_tasks(layout, sid))
    leaves = index.leaves()
    done = sum(1 for t in leaves if index.effective_status(t) == "completed")
    progress = data.get("progress") if isinstance(data.get("progress"), dict) else {}
    return {
        "session": sid,
        "project": data.get("project"),
        "status": data.get("status"),
        "phase": data.get("current_phase"),
        "type": data.get("type"),
        "counts": index.counts(),
        "progress": {
            "completed": done,
            "total": len(leaves),
            "percent": round(100 * done / len(leaves)) if leaves else 0,
            "completed_phases": progress.get("completed_phases", []),
            "current_tasks": progress.get("current_tasks", []),
        },
        "ready": index.ready(),
        "blocked": [t for t in leaves if index.effective_status(t) == "blocked"],
    }


@cli.command()
@json_flag
@pass_env
def status(env: Env) -> None:
    """Show the active session: phase, type, task counts, progress, ready and blocked tasks.

    \b
    Example:
      wfs status --json
    """
    from wfs.sessions import active_ids, marker_ids

    layout = env.layout
    if env.session is None and not active_ids(layout) and not marker_ids(layout):
        env.emit({"session": None}, lambda: env.echo("No active session."))
        return
    summary = _session_summary(layout, env.current_session())

    def human() -> None:
        counts = summary["counts"]
        progress = summary["progress"]
        env.echo(f"Session:  {env.style(summary['session'], bold=True)} ({summary['status']})")
        env.echo(f"Topic:    {summary['project']}")
        env.echo(f"Phase:    {summary['phase']}    Type: {summary['type']}")
        env.echo("Tasks:    " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        env.echo(f"Progress: {progress['completed']}/{progress['total']} tasks completed "
                 f"({progress['percent']}%)")
        env.echo(f"Ready:    {', '.join(summary['ready']) or '-'}")
        env.echo(f"Blocked:  {', '.join(summary['blocked']) or '-'}")

    env.emit(summary, human)


# ---------------------------------------------------------------- session


@cli.group()
def session() -> None:
    """Session lifecycle: list, show, pause, resume, complete.

    \b
    Example:
      wfs session list
    """


@session.command("list")
@json_flag
@pass_env
def session_list(env: Env) -> None:
    """List every session with its status; `*` marks the active one.

    \b
    Example:
      wfs session list --json
    """
    from wfs.sessions import active_ids, load_session, session_ids

    layout = env.layout
    active = set(active_ids(layout))
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for sid in session_ids(layout):
        try:
            data = load_session(layout, sid)
        except WfsError as err:
            errors.append(err.message)
            rows.append({"id": sid, "active": sid in active, "error": err.message})
            continue
        rows.append({
            "id": sid,
            "active": sid in active,
            "status": data.get("status"),
            "phase": data.get("current_phase"),
            "type": data.get("type"),
            "project": data.get("project"),
        })

    def human() -> None:
        if not rows:
            env.echo("No sessions. Create one with: wfs plan TOPIC")
        for row in rows:
            mark = "*" if row["active"] else " "
            if "error" in row:
                env.echo(f"{mark} {row['id']}  (unreadable)")
            else:
                env.echo(f"{mark} {row['id']}  {row['status']}  {row['phase']}  {row['type']}"
                         f"  {row['project']}")

    env.emit({"sessions": rows}, human)
    if errors:
        raise WfsError("\n".join(errors))


@session.command("show")
@click.argument("session_id", metavar="[ID]", required=False)
@json_flag
@pass_env
def session_show(env: Env, session_id: str | None) -> None:
    """Show one session (default: the active one) with its task counts.

    \b
    Example:
      wfs session show user-auth-system
    """
    from wfs.sessions import active_ids, current_session, load_session

    layout = env.layout
    sid = current_session(layout, session_id or env.session)
    summary = _session_summary(layout, sid)
    data = {
        "session": load_session(layout, sid),
        "active": sid in active_ids(layout),
        "path": layout.relative(layout.session_dir(sid)),
        "counts": summary["counts"],
        "progress": summary["progress"],
    }

    def human() -> None:
        env.echo(f"{sid}{'  (active)' if data['active'] else ''}")
        env.echo(f"  path:    {data['path']}")
        for key in ("project", "status", "current_phase", "type"):
            env.echo(f"  {key + ':':<9}{data['session'].get(key)}")
        env.echo("  tasks:   " + ", ".join(f"{k} {v}" for k, v in data["counts"].items()))

    env.emit(data, human)


def _lifecycle(env: Env, action: str, session_id: str | None) -> None:
    from wfs import sessions

    layout = env.layout
    sid = sessions.current_session(layout, session_id or env.session)
    if action == "resume":
        sessions.switch(layout, sid)
        new_status = "active"
    elif action == "pause":
        sessions.pause(layout, sid)
        new_status = "paused"
    else:
        sessions.complete(layout, sid)
        new_status = "completed"
    env.emit({"session": sid, "status": new_status},
             lambda: env.echo(f"{sid}: {new_status}"))


@session.command("pause")
@click.argument("session_id", metavar="[ID]", required=False)
@json_flag
@pass_env
def session_pause(env: Env, session_id: str | None) -> None:
    """Pause a session (default: the active one) and remove its active marker.

    \b
    Example:
      wfs session pause
    """
    _lifecycle(env, "pause", session_id)


@session.command("resume")
@click.argument("session_id", metavar="ID")
@json_flag
@pass_env
def session_resume(env: Env, session_id: str) -> None:
    """Resume session ID: it becomes the single active session (like `wfs switch`).

    \b
    Example:
      wfs session resume user-auth-system
    """
    _lifecycle(env, "resume", session_id)


@session.command("complete")
@click.argument("session_id", metavar="[ID]", required=False)
@json_flag
@pass_env
def session_complete(env: Env, session_id: str | None) -> None:
    """Mark a session (default: the active one) completed and remove its marker.

    \b
    Example:
      wfs session complete
    """
    _lifecycle(env, "complete", session_id)


# ---------------------------------------------------------------- schema


@cli.command()
@click.argument("name", type=click.Choice(["task", "session", "plan"]))
@pass_env
def schema(env: Env, name: str) -> None:
    """Print the JSON Schema of a task, session or plan document.

    \b
    Example:
      wfs schema task > task.schema.json
    """
    from wfs.resources import read_text

    click.echo(read_text("schemas", f"{name}.schema.json"), nl=False)


def main() -> None:
    cli(prog_name="wfs")
