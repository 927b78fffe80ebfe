"""The `wfs` command line: parse options, call the library, print the result.

Library modules are imported inside the commands so that `wfs --help` and the quick
read commands start fast.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from wfs import __version__
from wfs.completion import complete_session_id, complete_task_id
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
            from wfs import store
            from wfs.layout import Layout, find_root

            self._layout = Layout(find_root(self._root))
            store.confine(self._layout.root)
        return self._layout

    def current_session(self) -> str:
        from wfs.sessions import current_session

        return current_session(self.layout, self.session)

    def echo(self, text: str = "", *, err: bool = False) -> None:
        from wfs.text import for_terminal

        # None lets click drop styles when the stream is not a terminal.
        click.echo(for_terminal(text), err=err, color=None if self.color else False)

    def style(self, text: str, **styles: Any) -> str:
        return click.style(text, **styles) if self.color else text

    def emit(self, data: Any, human: Callable[[], None]) -> None:
        """Print `data` as JSON with --json, else run the human formatter."""
        if self.json:
            from wfs.query import json_bytes

            sys.stdout.buffer.write(json_bytes(data))
            sys.stdout.flush()
        else:
            human()

    def lines(self, lines: list[str]) -> None:
        for line in lines:
            self.echo(line)


def _color_default() -> bool:
    return "NO_COLOR" not in os.environ


pass_env = click.make_pass_decorator(Env)


class WfsGroup(click.Group):
    """Turns library errors into a one-line message and the spec's exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WfsError as err:
            from wfs.text import printable

            click.echo(f"wfs: error: {printable(err.message)}", err=True)
            ctx.exit(err.exit_code)
        except OSError as err:  # a full disk, a read-only file system, a permission...
            from wfs.text import printable

            click.echo(f"wfs: error: {printable(_os_error(ctx, err))}", err=True)
            ctx.exit(2)


INTERRUPTED_CHANGE = (
    "a change to several files was interrupted, so they are half written; "
    "`wfs doctor --fix` finishes it"
)


def _os_error(ctx: click.Context, err: OSError) -> str:
    from wfs.errors import os_error_message

    layout = getattr(ctx.find_object(Env), "_layout", None)
    return os_error_message(err, layout.root if layout is not None else None)


@click.group(cls=WfsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="wfs")
@click.option(
    "--root",
    envvar="WFS_ROOT",
    metavar="DIR",
    help="Project root (default: nearest ancestor holding .workflow/, else the current "
    "directory). Env: WFS_ROOT.",
)
@click.option(
    "--session",
    "session",
    envvar="WFS_SESSION",
    metavar="ID",
    shell_complete=complete_session_id,
    help="Session to work on (default: the active one). Env: WFS_SESSION.",
)
@click.option("--json", "json_out", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--no-color", is_flag=True, help="No colors (also when NO_COLOR is set).")
@click.pass_context
def cli(
    ctx: click.Context, root: str | None, session: str | None, json_out: bool, no_color: bool
) -> None:
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
@click.option(
    "--no-git", is_flag=True, help="Skip .gitattributes, the merge drivers and the hooks."
)
@json_flag
@pass_env
def init(env: Env, no_git: bool) -> None:
    """Create .workflow/ and its .gitignore here, and set up git merging; safe to run again.

    Adds merge rules for the plan files to .gitattributes (keeping existing lines) and,
    in a git work tree, configures the wfs merge drivers and the pre-merge-commit and
    post-merge hooks that put freshly rendered views into merge commits (an existing
    hook that is not wfs's is left alone). Run it once in every fresh clone.

    \b
    Example:
      wfs init
    """
    from wfs.sessions import init as do_init

    layout = env.layout
    created = do_init(layout)
    setup = None
    if not no_git:
        from wfs.merge import setup_git

        setup = setup_git(layout)

    def human() -> None:
        env.echo(f"{'Initialized' if created else 'Already initialized'} {layout.workflow}")
        if setup is not None:
            _print_git_setup(env, setup)

    env.emit(
        {
            "root": str(layout.root),
            "workflow": layout.relative(layout.workflow),
            "created": created,
            "git": None if setup is None else setup._asdict(),
        },
        human,
    )
    if setup is not None:
        for name, line in setup.manual.items():
            env.echo(
                f"wfs: warning: {setup.hooks_path}/{name} is not wfs's; to keep plan views "
                f"fresh in merge commits, add this line to it:\n  {line}",
                err=True,
            )


def _print_git_setup(env: Env, setup: Any) -> None:
    if setup.gitattributes != "unchanged":
        env.echo(f".gitattributes: {setup.gitattributes} (merge rules for the plan files)")
    if setup.drivers == "configured":
        env.echo("git: merge drivers wfs-views and wfs-json configured")
    for name, state in setup.hooks.items():
        if state in ("installed", "updated"):
            env.echo(f"git: {setup.hooks_path}/{name} {state}")
    if not setup.repository and setup.changed():
        env.echo("git: not a git work tree; run `wfs init` again after `git init`")


# ---------------------------------------------------------------- plan / switch


INPUT_LIMIT = 64 * 1024 * 1024  # a plan document or an answer larger than this is refused


def read_input(source: str) -> tuple[bytes, str]:
    """Bytes of FILE, or of stdin for "-", and the name to show in messages.

    At most INPUT_LIMIT bytes: a device such as /dev/zero, or a runaway pipe, is refused
    instead of filling the memory."""
    name = "<stdin>" if source == "-" else source
    fifo = False
    try:
        if source == "-":
            data = sys.stdin.buffer.read(INPUT_LIMIT + 1)
        else:
            # Opening a FIFO waits for a writer, maybe for ever; without waiting, a FIFO
            # nobody writes to reads as empty (one being written to, as `<(cmd)`, reads).
            fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
            os.set_blocking(fd, True)
            with open(fd, "rb") as handle:
                fifo = stat.S_ISFIFO(os.fstat(fd).st_mode)
                data = handle.read(INPUT_LIMIT + 1)
    except OSError as err:
        raise WfsError(f"{name}: cannot read: {err.strerror}") from None
    if fifo and not data:
        raise WfsError(f"{name}: is a FIFO that nobody writes to; nothing to read")
    if len(data) > INPUT_LIMIT:
        raise WfsError(f"{name}: larger than {INPUT_LIMIT // (1024 * 1024)} MiB; refused")
    return data, name


@cli.command()
@click.argument("topic", required=False)
@click.option(
    "--from",
    "source",
    metavar="FILE|-",
    help="Plan document: {overview, requirements, tasks} or a task array.",
)
@click.option(
    "--type",
    "session_type",
    type=click.Choice(["simple", "medium", "complex"]),
    help="Complexity to start from (it is only ever raised).",
)
@click.option(
    "--session",
    "replan_id",
    metavar="ID",
    shell_complete=complete_session_id,
    help="Add or replace tasks in this existing session instead.",
)
@json_flag
@click.pass_context
def plan(
    ctx: click.Context,
    topic: str | None,
    source: str | None,
    session_type: str | None,
    replan_id: str | None,
) -> None:
    """Create a session for TOPIC (the only active one), with tasks from a plan document.

    The whole plan is validated first; one bad task writes nothing. Prints the session id.
    With --session ID, the plan's tasks are added to (or replace those of) that session,
    keeping the status of tasks that already exist.

    \b
    Example:
      wfs plan "User Auth System" --from plan.json
      wfs plan --session user-auth-system --from more-tasks.json
    """
    from click.core import ParameterSource

    from wfs import commands

    env = ctx.find_object(Env)
    assert env is not None
    # WFS_SESSION in the environment must not turn `wfs plan TOPIC` into a replan.
    explicit = replan_id
    if explicit is None and env.session and ctx.parent is not None:
        from_flag = ctx.parent.get_parameter_source("session") == ParameterSource.COMMANDLINE
        if from_flag or topic is None:
            explicit = env.session
    if not explicit and topic is None:
        raise click.UsageError("missing TOPIC (or --session ID to replan a session)")
    document = None if source is None else lambda: read_input(source)
    data = commands.plan(env.layout, topic, document, session_type, explicit)
    env.emit(data, lambda: env.echo(data["session"]))


@cli.command()
@click.argument("session_id", metavar="ID", shell_complete=complete_session_id)
@json_flag
@pass_env
def switch(env: Env, session_id: str) -> None:
    """Make session ID (WFS-x or x) the single active session.

    Previously active sessions become paused.

    \b
    Example:
      wfs switch user-auth-system
    """
    from wfs import commands

    data = commands.switch(env.layout, session_id)
    paused = data["paused"]
    env.emit(
        data,
        lambda: env.echo(
            f"Active session: {data['session']}"
            + (f" (paused {', '.join(paused)})" if paused else "")
        ),
    )


# ---------------------------------------------------------------- status


def _answers(layout: Any, sid: str) -> dict[str, Any]:
    from wfs.index import answers

    return answers(layout, sid)


@cli.command()
@json_flag
@pass_env
def status(env: Env) -> None:
    """Show the active session: phase, type, task counts, progress, ready and blocked tasks.

    \b
    Example:
      wfs status --json
    """
    from wfs import commands

    summary = commands.status(env.layout, env.session, _root_option(env))
    if summary["session"] is None:
        env.emit(summary, lambda: env.echo("No active session."))
        return
    from wfs.query import status_lines

    env.emit(summary, lambda: env.lines(status_lines(summary, lambda t: env.style(t, bold=True))))
    for warning in summary.get("warnings", []):
        env.echo(f"wfs: warning: {warning}", err=True)
    _refuse_unreadable(summary.get("unreadable"))


def _refuse_unreadable(found: list[str] | None) -> None:
    """After answering from every task that could be read: exit 2 naming each task file
    that could not (file, line, column, reason)."""
    if found:
        raise WfsError("\n".join(found))


def _root_option(env: Env) -> str | None:
    """The project root when `--root` was given on the command line, else None.

    The commands we print (`resume`) keep it, so they work from wherever this one ran.
    """
    from click.core import ParameterSource

    root_ctx = click.get_current_context().find_root()
    given = root_ctx.get_parameter_source("root") == ParameterSource.COMMANDLINE
    return str(env.layout.root) if given else None


def _command_prefix(env: Env, sid: str) -> list[str]:
    """`wfs [--root DIR] --session SID`: how the next commands we print call wfs again."""
    from wfs.query import command_prefix

    return command_prefix(sid, _root_option(env))


@cli.command()
@click.option(
    "--hook-json",
    is_flag=True,
    help="Print it as the output of an editor's SessionStart hook (JSON).",
)
@click.option(
    "--editor",
    type=click.Choice(["claude", "gemini", "codex"]),
    help="With --hook-json: the editor running the hook (default: claude).",
)
@json_flag
@pass_env
def prime(env: Env, hook_json: bool, editor: str | None) -> None:
    """Print a short digest of the active session for an agent's context.

    Phase, progress, the next ready task and the command that runs it, the blocked and
    paused tasks with their resume commands, and the ground rules; at most 1,500
    characters. With --hook-json, the same text in the JSON a SessionStart hook of
    Claude Code, Gemini CLI or Codex CLI prints, and a plan that cannot be read is
    reported in the text instead of failing the hook.

    \b
    Example:
      wfs prime
      wfs prime --hook-json --editor gemini
    """
    from wfs import commands
    from wfs import prime as digests

    if editor is not None and not hook_json:
        raise click.UsageError("--editor goes with --hook-json")
    if not hook_json:
        sid, text = commands.prime(env.layout, env.session)
        env.emit(digests.json_data(sid, text), lambda: click.echo(text, nl=False))
        return
    try:
        text = commands.prime(env.layout, env.session)[1]
    except WfsError as err:
        text = digests.error_text(err.message)
    sys.stdout.buffer.write(digests.hook_json(text, editor or "claude"))
    sys.stdout.flush()


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
    from wfs.query import one_line
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
        # phase and type as the session file says them, else derived (docs/formats.md)
        summary = _answers(layout, sid)["summary"]
        rows.append(
            {
                "id": sid,
                "active": sid in active,
                "status": data.get("status"),
                "phase": summary["phase"],
                "type": summary["type"],
                "project": summary["project"],
            }
        )

    def human() -> None:
        if not rows:
            env.echo("No sessions. Create one with: wfs plan TOPIC")
        for row in rows:
            mark = "*" if row["active"] else " "
            if "error" in row:
                env.echo(f"{mark} {row['id']}  (unreadable)")
            else:
                status, kind, project = (one_line(row[k]) for k in ("status", "type", "project"))
                env.echo(f"{mark} {row['id']}  {status}  {row['phase']}  {kind}  {project}")

    env.emit({"sessions": rows}, human)
    if errors:
        raise WfsError("\n".join(errors))


@session.command("show")
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
@json_flag
@pass_env
def session_show(env: Env, session_id: str | None) -> None:
    """Show one session (default: the active one) with its task counts.

    \b
    Example:
      wfs session show user-auth-system
    """
    from wfs.query import one_line
    from wfs.sessions import active_ids, current_session, load_session

    layout = env.layout
    sid = current_session(layout, session_id or env.session)
    summary = _answers(layout, sid)["summary"]
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
        shown = {
            "project": summary["project"],
            "status": data["session"].get("status"),
            "current_phase": summary["phase"],  # derived when the file has none
            "type": summary["type"],
        }
        for key, value in shown.items():
            env.echo(f"  {key + ':':<9}{one_line(value)}")
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
    env.emit({"session": sid, "status": new_status}, lambda: env.echo(f"{sid}: {new_status}"))


@session.command("pause")
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
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
@click.argument("session_id", metavar="ID", shell_complete=complete_session_id)
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
@click.argument("session_id", metavar="[ID]", required=False, shell_complete=complete_session_id)
@json_flag
@pass_env
def session_complete(env: Env, session_id: str | None) -> None:
    """Mark a session (default: the active one) completed and remove its marker.

    \b
    Example:
      wfs session complete
    """
    _lifecycle(env, "complete", session_id)


# ---------------------------------------------------------------- tasks


def _load_index(env: Env) -> tuple[str, Any]:
    from wfs.index import load_skeletons
    from wfs.tasks import TaskIndex

    sid = env.current_session()
    return sid, TaskIndex(load_skeletons(env.layout, sid))


@cli.group()
def task() -> None:
    """Read and change the tasks of the active session.

    \b
    Example:
      wfs task list --ready
    """


@task.command("list")
@click.option(
    "--status",
    "status_filter",
    type=click.Choice(["pending", "active", "completed", "blocked", "container"]),
    help="Only tasks with this (derived) status.",
)
@click.option("--ready", is_flag=True, help="Only tasks ready to run.")
@json_flag
@pass_env
def task_list(env: Env, status_filter: str | None, ready: bool) -> None:
    """List tasks in id order, subtasks under their container.

    \b
    Example:
      wfs task list --status pending --json
    """
    from wfs.layout import task_sort_key
    from wfs.query import row_lines
    from wfs.tasks import task_row

    sid, index = _load_index(env)
    ids = index.ready() if ready else sorted(index.by_id, key=task_sort_key)
    rows = [task_row(index, tid) for tid in ids]
    if status_filter:
        rows = [
            r for r in rows if ("container" if r["container"] else r["status"]) == status_filter
        ]
    env.emit(
        {"session": sid, "tasks": rows},
        lambda: env.lines(row_lines(rows) or ["No matching tasks."]),
    )
    _refuse_unreadable([t["unreadable"] for t in index.tasks if t.get("unreadable")])


@task.command("show")
@click.argument("task_id", metavar="ID", shell_complete=complete_task_id)
@json_flag
@pass_env
def task_show(env: Env, task_id: str) -> None:
    """Show one task: its JSON, derived status, readiness and what it waits on.

    \b
    Example:
      wfs task show IMPL-1.2 --json
    """
    from wfs import commands
    from wfs.query import show_lines

    data = commands.show_task(env.layout, env.session, task_id)
    env.emit(data, lambda: env.lines(show_lines(data)))
    _refuse_unreadable(commands.unreadable(env.layout, env.session))


def _object_from(source: str | None) -> dict[str, Any] | None:
    """The JSON object of task fields given with `--from`, if any."""
    if not source:
        return None
    from wfs.store import parse_json

    data = parse_json(*read_input(source))
    if not isinstance(data, dict):
        raise WfsError(f"{source}: expected a JSON object with task fields")
    return data


def _fields(source: str | None, **options: Any) -> dict[str, Any]:
    """Task fields from command-line options, merged over an optional JSON object."""
    from wfs.edit import task_fields

    return task_fields(_object_from(source), **options)


def task_field_options(func: F) -> F:
    for option in reversed(
        [
            click.option("--title", help="Task title."),
            click.option(
                "--type",
                "task_type",
                type=click.Choice(
                    ["feature", "bugfix", "refactor", "test-gen", "test-fix", "docs"]
                ),
                help="Kind of work (meta.type).",
            ),
            click.option("--agent", help="meta.agent, e.g. @code-developer."),
            click.option(
                "--depends-on",
                "depends",
                multiple=True,
                metavar="ID",
                shell_complete=complete_task_id,
                help="Task this one waits for (repeatable).",
            ),
            click.option(
                "--requirement", "requirements", multiple=True, help="Requirement (repeatable)."
            ),
            click.option("--acceptance", multiple=True, help="Acceptance criterion (repeatable)."),
            click.option(
                "--focus-path", "focus", multiple=True, help="Concrete path (repeatable)."
            ),
            click.option("--from", "source", metavar="FILE|-", help="JSON object of task fields."),
        ]
    ):
        func = option(func)
    return func


@task.command("add")
@click.option("--id", "task_id", help="Task id (default: the next free one).")
@click.option(
    "--parent",
    metavar="ID",
    shell_complete=complete_task_id,
    help="Add as the next subtask of this main task.",
)
@task_field_options
@json_flag
@pass_env
def task_add(env: Env, /, task_id: str | None, parent: str | None, **options: Any) -> None:
    """Add a task (default id: the next IMPL-N, or IMPL-N.M with --parent).

    \b
    Example:
      wfs task add --title "Write login tests" --type test-gen --depends-on IMPL-1
    """
    from wfs import commands
    from wfs.layout import check_task_id

    data = _object_from(options.pop("source"))
    if task_id is not None:
        check_task_id(task_id)
    title = options["title"] if options["title"] is not None else (data or {}).get("title")
    if not title:
        raise click.UsageError("a task needs --title (or a title in --from)")
    found, text = commands.task_add(
        env.layout, env.session, task_id=task_id, parent=parent, data=data, **options
    )
    env.emit(found, lambda: env.echo(text))


@task.command("update")
@click.argument("task_id", metavar="ID", shell_complete=complete_task_id)
@task_field_options
@json_flag
@pass_env
def task_update(env: Env, /, task_id: str, **options: Any) -> None:
    """Change a task's fields; list options replace the whole list.

    \b
    Example:
      wfs task update IMPL-2 --title "Add refresh tokens" --depends-on IMPL-1
    """
    from wfs.edit import update_task
    from wfs.layout import check_task_id

    changes = _fields(**options)
    if not changes:
        raise click.UsageError("nothing to change; give at least one option")
    updated = update_task(env.layout, env.current_session(), check_task_id(task_id), changes)
    env.emit({"task": updated}, lambda: env.echo(f"{task_id}: updated"))


@task.command("status")
@click.argument("task_id", metavar="ID", shell_complete=complete_task_id)
@click.argument(
    "new_status", metavar="STATUS", type=click.Choice(["pending", "active", "completed", "blocked"])
)
@json_flag
@pass_env
def task_status(env: Env, task_id: str, new_status: str) -> None:
    """Set a leaf task's status (containers derive theirs from their subtasks).

    \b
    Example:
      wfs task status IMPL-1.1 completed
    """
    from wfs import commands

    data, text = commands.task_status(env.layout, env.session, task_id, new_status)
    env.emit(data, lambda: env.echo(text))


@task.command("split")
@click.argument("task_id", metavar="ID", shell_complete=complete_task_id)
@click.option(
    "--from",
    "source",
    required=True,
    metavar="FILE|-",
    help='Subtasks: a JSON array (or {"tasks": [...]}) of task objects.',
)
@json_flag
@pass_env
def task_split(env: Env, task_id: str, source: str) -> None:
    """Split a main task into subtasks IMPL-N.1, IMPL-N.2, …; it becomes their container.

    Subtasks get context.parent and context.inherited from it. At most 2 levels.

    \b
    Example:
      wfs task split IMPL-2 --from subtasks.json
    """
    from wfs.edit import split_task
    from wfs.layout import check_task_id

    created = split_task(
        env.layout, env.current_session(), check_task_id(task_id), *read_input(source)
    )
    ids = [t["id"] for t in created]
    env.emit({"task": task_id, "subtasks": ids}, lambda: env.echo("\n".join(ids)))


@cli.command("next")
@click.option("--all", "all_ready", is_flag=True, help="Every ready task, not just the first.")
@json_flag
@pass_env
def next_task(env: Env, all_ready: bool) -> None:
    """Show the next ready leaf task (lowest id whose dependencies are completed).

    \b
    Example:
      wfs next --all --json
    """
    from wfs import commands
    from wfs.query import next_lines

    data = commands.next_tasks(env.layout, env.session, all_ready, _root_option(env))
    env.emit(data, lambda: env.lines(next_lines(data)))
    _refuse_unreadable(commands.unreadable(env.layout, env.session))


# ---------------------------------------------------------------- checks


@cli.command()
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@json_flag
@pass_env
def validate(env: Env, all_sessions: bool) -> None:
    """Check task and session files against every rule; one `path: rule: message` per problem.

    Exits 1 when any error is found (warnings alone exit 0).

    \b
    Example:
      wfs validate --all
    """
    from wfs import commands
    from wfs.sessions import session_ids

    layout = env.layout
    sids = session_ids(layout) if all_sessions else [env.current_session()]
    result = commands.validate(layout, sids, every=all_sessions)

    def human() -> None:
        for problem in result.problems:
            env.echo(str(problem))
        if not result.problems:
            env.echo(f"OK: {', '.join(sids) or 'no sessions'}")

    env.emit(result.data, human)
    if result.exit_code:
        click.get_current_context().exit(result.exit_code)


@cli.command()
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a view is stale.")
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@json_flag
@pass_env
def render(env: Env, check: bool, all_sessions: bool) -> None:
    """Regenerate TODO_LIST.md and IMPL_PLAN.md from the JSON.

    With --check, name every view that is stale or hand-edited and exit 1.

    \b
    Example:
      wfs render --check --all
    """
    from wfs import render as views
    from wfs import store
    from wfs.index import load_skeletons
    from wfs.sessions import load_session, session_ids

    layout = env.layout
    sids = session_ids(layout) if all_sessions else [env.current_session()]
    which: dict[str, Any] = {"sessions": sids} if all_sessions else {"session": sids[0]}
    # Views are rendered from the whole plan: a task file that cannot be read stops it.
    skeletons = [t for sid in sids for t in load_skeletons(layout, sid)]
    _refuse_unreadable([t["unreadable"] for t in skeletons if t.get("unreadable")])
    paths: list[str] = []
    interrupted: list[str] = []  # sessions with a half-applied change (a pending journal)
    for sid in sids:
        session_dir = layout.session_dir(sid)
        if check:
            if layout.journal(sid).exists():
                interrupted.append(layout.relative(layout.journal(sid)))
            expected = views.expected_views(
                session_dir, load_session(layout, sid), load_skeletons(layout, sid)
            )
            names = [n for n, text in expected.items() if views.read_view(session_dir / n) != text]
        else:
            with store.locked(layout.session_lock(sid), sid):
                store.replay(layout.journal(sid))
                names = views.write_views(
                    session_dir, load_session(layout, sid), load_skeletons(layout, sid)
                )
        paths += [layout.relative(session_dir / name) for name in names]
    if check:
        fix = "wfs render --all" if all_sessions else "wfs render"

        def human() -> None:
            for journal in interrupted:
                env.echo(f"{journal}: {INTERRUPTED_CHANGE}")
            for path in paths:
                env.echo(f"{path}: stale or hand-edited; run `{fix}`")
            if not paths and not interrupted:
                env.echo(
                    f"OK: views of {', '.join(sids)} are up to date" if sids else "OK: no sessions"
                )

        env.emit({**which, "stale": paths, "interrupted": interrupted}, human)
        if paths or interrupted:
            click.get_current_context().exit(1)
        return
    env.emit(
        {**which, "written": paths},
        lambda: env.echo("\n".join(f"wrote {p}" for p in paths) or "Views already up to date."),
    )


@cli.command()
@click.option("--fix", is_flag=True, help="Repair what can be repaired safely.")
@json_flag
@pass_env
def doctor(env: Env, fix: bool) -> None:
    """Find (and with --fix repair) inconsistent state.

    Orphaned or extra active markers, corrupted session files (kept aside, recreated),
    broken parent/child links, stale views, leftovers of interrupted writes.
    Without --fix, exits 1 when it finds anything.

    \b
    Example:
      wfs doctor --fix
    """
    from wfs.doctor import doctor as run_doctor

    results = run_doctor(env.layout, fix)
    rows = [
        {
            "where": f.where,
            "problem": f.problem,
            "action": f.action,
            "fixable": f.repair is not None,
            "fixed": fixed,
        }
        for f, fixed in results
    ]

    def human() -> None:
        for row in rows:
            if row["fixed"]:
                env.echo(f"fixed: {row['where']}: {row['problem']} ({row['action']})")
            elif row["fixable"]:
                env.echo(f"found: {row['where']}: {row['problem']} (`wfs doctor --fix` repairs it)")
            else:
                env.echo(f"found: {row['where']}: {row['problem']} ({row['action']})")
        if not rows:
            env.echo("OK: nothing to repair")

    env.emit({"findings": rows}, human)
    if any(not row["fixed"] for row in rows):
        click.get_current_context().exit(1)


@cli.command()
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@click.option(
    "--layout",
    "target_layout",
    type=click.Choice(["markers", "active"]),
    help="Move every session into this layout instead: markers (.workflow/WFS-*) or "
    "active (.workflow/active/ and archives/).",
)
@json_flag
@pass_env
def migrate(env: Env, all_sessions: bool, target_layout: str | None) -> None:
    """Convert task and session files to the canonical seed form, keeping every field.

    Task files in the v1 form, the flat format, with task_id, dependencies outside
    context.depends_on or statuses of other tools are rewritten in the seed form;
    session files get what the seed asks of them (current_phase, progress, ...).
    With --layout, moves the sessions instead (active ones stay active).

    \b
    Example:
      wfs migrate --all
      wfs migrate --layout active
    """
    from wfs.edit import migrate as do_migrate
    from wfs.sessions import convert_layout, session_folders, session_ids

    if target_layout is not None:
        moves = convert_layout(env.layout, target_layout)
        env.emit(
            {"layout": target_layout, "moved": [{"from": a, "to": b} for a, b in moves]},
            lambda: env.echo(
                "\n".join(f"moved {a} to {b}" for a, b in moves)
                or f"Already in the {target_layout} layout."
            ),
        )
        return
    layout = env.layout
    if all_sessions:
        # every copy of every session (validate --all reads them all)
        names = session_ids(layout)
        changed = {
            (f.name if f.path == layout.session_dir(f.name) else layout.relative(f.path)): (
                do_migrate(layout, f.name, f.path)
            )
            for f in session_folders(layout)
            if f.name in names
        }
    else:
        sid = env.current_session()
        changed = {sid: do_migrate(layout, sid)}
    env.emit(
        {"migrated": changed},
        lambda: env.echo(
            "\n".join(f"{key}: migrated {name}" for key, names in changed.items() for name in names)
            or "Nothing to migrate."
        ),
    )


# ---------------------------------------------------------------- execute


def _agent_routes(env: Env, option: str | None) -> Any:
    from wfs.commands import agent_routes

    return agent_routes(env.layout, option)


def _progress(env: Env) -> Any:
    def report(event: str, data: dict[str, Any]) -> None:
        if event == "start":
            env.echo(f"  {data['task']} ▶ {data['name']} …", err=True)
        elif event == "fix":
            env.echo(
                f"  {data['task']} · {data['name']}: failed ({data['error']}); "
                f"fix {data['iteration']} of {data['of']} goes to the agent",
                err=True,
            )
        elif event == "step":
            color = {"done": "green", "skipped": "yellow", "paused": "yellow"}.get(
                data["outcome"], "red"
            )
            outcome = env.style(data["outcome"], fg=color)
            env.echo(
                f"  {data['task']} · {data['name']}: {outcome} ({data['elapsed']:.2f}s)",
                err=True,
            )

    return report


def answer_options(func: F) -> F:
    """--output, --output-file and --skip: how a resumed run goes on where it stopped."""
    for option in (
        click.option("--skip", is_flag=True, help="With --resume: skip the step where it stopped."),
        click.option(
            "--output-file",
            type=click.Path(dir_okay=False, allow_dash=True),
            metavar="F",
            help="With --resume: read the stopped step's answer from F (`-`: stdin).",
        ),
        click.option(
            "--output", "output_text", metavar="TEXT", help="With --resume: the step's answer."
        ),
    ):
        func = option(func)
    return func


def _resume_answer(
    output_text: str | None, output_file: str | None, skip: bool, resuming: bool
) -> str | None:
    """The answer given with --output or --output-file (`-`: stdin), checked before any
    change: an empty one is refused (exit 2)."""
    from wfs.flow.answer import read_answer

    if sum(x is not None for x in (output_text, output_file)) + skip > 1:
        raise click.UsageError("give at most one of --output, --output-file and --skip")
    if (output_text is not None or output_file or skip) and not resuming:
        raise click.UsageError("--output, --output-file and --skip go with --resume")
    if output_file is not None:
        raw, where = read_input(output_file)
        text, source = raw.decode("utf-8", "replace"), f"--output-file {where}"
    elif output_text is not None:
        text, source = output_text, "--output"
    else:
        return None
    read_answer(text, source)
    return text


def _show_result(env: Env, result: dict[str, Any]) -> None:
    from wfs.query import one_line, shell_join

    tid, status = result["task"], result["status"]
    resume = shell_join(result.get("resume", []))
    if status == "completed":
        env.echo(f"{tid}: completed → {result['summary']}")
    elif status == "paused":
        _show_pause(env, result)
    elif status == "refused":
        env.echo(f"{tid}: refused: {one_line(result['reason'], 1000)}")
        env.echo(f"  The step stays paused. Resume: {resume}")
        env.echo("  (with --output-file F or --output TEXT to answer, or --skip to skip it)")
    elif status == "interrupted":
        where = f" at {result['step']}" if result.get("step") else ""
        env.echo(f"{tid}: interrupted by {result['signal']}{where}; the task is paused.")
        env.echo(f"  Resume: {resume}")
    else:
        env.echo(f"{tid}: blocked: {one_line(result['reason'], 500)}")
        tries = result.get("tries", [])
        failed = [t for t in tries if "error" in t]
        if len(failed) > 1:
            for n, attempt in enumerate(failed, start=1):
                env.echo(f"  attempt {n} of {len(failed)}: {one_line(attempt['error'])}")
        for stream in ("stdout", "stderr"):
            lines = result.get("tail", {}).get(stream) or []
            if lines:
                env.echo(f"  {stream} (last {len(lines)} lines):")
                for line in lines:
                    env.echo(f"    {one_line(line, 400)}")
        env.echo(f"  Resume: {resume}")
        env.echo("  (runs the stopped step again; add --skip to skip it instead)")


def _show_pause(env: Env, result: dict[str, Any]) -> None:
    from wfs.flow.brief import as_text
    from wfs.query import shell_join

    brief = result["brief"]
    names = ", ".join(f"{s['name']} ({s['key']})" for s in brief["steps"])
    env.echo(f"Paused: {result['task']} · {names}: {result['reason']}")
    env.echo("")
    env.echo(as_text(brief, full=False).rstrip("\n"))
    env.echo("")
    env.echo(f"Resume: {shell_join(result['resume'])} --output-file F")
    env.echo("  (F holds the answer; `-` reads it from stdin. Or --output TEXT, or --skip.)")


@cli.command()
@click.argument("task_id", metavar="[ID]", required=False, shell_complete=complete_task_id)
@click.option("--all", "run_all", is_flag=True, help="Keep going until no task is ready.")
@click.option("--dry-run", is_flag=True, help="Show every resolved step; run nothing.")
@click.option(
    "--resume",
    "resume_id",
    metavar="ID",
    shell_complete=complete_task_id,
    help="Continue a stopped task (paused, blocked, or left by a killed run).",
)
@answer_options
@click.option(
    "--agent",
    "agent_option",
    metavar="CMD",
    help="Agent command: gets each agent step's brief on stdin, answers on stdout.",
)
@click.option(
    "--agent-scope",
    type=click.Choice(["task", "step"]),
    default="task",
    show_default=True,
    help="task: consecutive agent steps go to the agent in one brief; step: one brief each.",
)
@json_flag
@pass_env
def execute(
    env: Env,
    task_id: str | None,
    run_all: bool,
    dry_run: bool,
    resume_id: str | None,
    output_text: str | None,
    output_file: str | None,
    skip: bool,
    agent_option: str | None,
    agent_scope: str,
) -> None:
    """Run a task's flow control: the given ID, or the next ready task.

    A task is completed only when every step in it ran and succeeded. Every stop prints
    the command that continues it: `--resume ID` runs the stopped step again (or takes
    the answer an agent step waits for), `--skip` skips it; finished steps never run
    again. Ctrl-C stops the running step and leaves the task paused.

    Exit codes: 0 done (or nothing ready), 1 a step failed (task blocked), 2 bad input
    (an invalid task, an empty answer), 3 paused for an agent or a person,
    130/143 interrupted.

    \b
    Example:
      wfs execute --all
      wfs execute --resume IMPL-2 --output-file answer.md
    """
    from wfs import commands

    if resume_id and task_id:
        raise click.UsageError("give either a task ID or --resume ID, not both")
    answer = _resume_answer(output_text, output_file, skip, resume_id is not None)
    runner = commands.runner(
        env.layout,
        env.current_session(),
        agent_option,
        _root_option(env),
        progress=None if dry_run else _progress(env),
        scope=agent_scope,
    )
    if dry_run:
        _dry_run(env, runner, task_id or resume_id)
        return
    run = commands.execute(
        runner,
        task_id,
        resume_id,
        answer,
        skip,
        run_all,
        note=lambda text: env.echo(f"{resume_id}: {text}", err=True),
    )
    data = run.data

    def human() -> None:
        from wfs.query import idle_lines

        if not data["tasks"]:
            env.lines(idle_lines(data["stopped"]))
        for result in data["tasks"]:
            _show_result(env, result)
        if run.signum is not None and not run.interrupted:
            env.echo("Interrupted: stopped before the next task.")

    env.emit(data, human)
    if run.exit_code:
        click.get_current_context().exit(run.exit_code)


def _dry_run(env: Env, runner: Any, task_id: str | None) -> None:
    from wfs import commands
    from wfs.flow.preview import human_lines

    plan = commands.dry_run(env.layout, runner, task_id)
    if plan.get("task") is None:
        env.emit(plan, lambda: env.echo("No task is ready."))
        return
    env.emit(plan, lambda: env.lines(human_lines(plan)))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--agent", "agent_option", metavar="CMD", help="Agent command for agent steps.")
@click.option(
    "--resume", "resume", is_flag=True, help="Continue the paused run of FILE where it stopped."
)
@answer_options
@json_flag
@pass_env
def flow(
    env: Env,
    file: str,
    agent_option: str | None,
    resume: bool,
    output_text: str | None,
    output_file: str | None,
    skip: bool,
) -> None:
    """Run the inline [FLOW_CONTROL] steps of a markdown file, in order.

    Outputs accumulate as [variables]; there are no dependencies. A run that stops
    (an agent step, a failure, Ctrl-C) continues with `wfs flow FILE --resume`.

    \b
    Example:
      wfs flow brainstorm-prompt.md --json
      wfs flow brainstorm-prompt.md --resume --output-file answer.md
    """
    from wfs.flow import signals
    from wfs.flow.inline import FlowRunner, parse_inline, run_flow
    from wfs.sessions import active_ids

    answer = _resume_answer(output_text, output_file, skip, resume)
    raw, where = read_input(file)
    specs = parse_inline(raw.decode("utf-8", "replace"), where)
    sid = env.session or (active_ids(env.layout) or [""])[0]
    prefix = _command_prefix(env, sid) if sid else ["wfs"]
    runner = FlowRunner(
        env.layout, sid, _agent_routes(env, agent_option), _progress(env), prefix, file
    )
    with signals.handled():
        given = {"skip": skip, "output": answer} if resume else None
        result = run_flow(runner, specs, where, given)

    def human() -> None:
        if result["status"] == "completed":
            for name, value in result.get("values", {}).items():
                env.echo(f"[{name}]\n{value}")
        else:
            _show_result(env, result)

    env.emit(result, human)
    codes = {"completed": 0, "blocked": 1, "refused": 2, "paused": 3}
    code = result.get("exit_code", codes.get(result["status"], 1))
    if code:
        click.get_current_context().exit(code)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("kind")
@click.argument("description")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@json_flag
@pass_env
def capture(env: Env, kind: str, description: str, command: tuple[str, ...]) -> None:
    """Run COMMAND and save its output as KIND-<slug>-<timestamp>.md.

    It goes to the active session's .chat/, or to .workflow/.scratchpad/ when no session
    is active. Exits 1 when the command fails.

    \b
    Example:
      wfs capture analyze "auth flow" -- rg -n login src/
    """
    from wfs.capture import capture as run_capture

    saved, code = run_capture(env.layout, env.session, kind, description, list(command))
    path = env.layout.relative(saved)
    env.emit({"path": path, "exit_code": code}, lambda: env.echo(path))
    if code != 0:
        click.get_current_context().exit(1)


# ---------------------------------------------------------------- schema


@cli.command()
@click.argument("name", type=click.Choice(["task", "task-v1", "task-flat", "session", "plan"]))
@pass_env
def schema(env: Env, name: str) -> None:
    """Print the JSON Schema of a task, session or plan document.

    `task` is the canonical seed form; `task-v1` and `task-flat` are the other task
    formats wfs reads (docs/formats.md).

    \b
    Example:
      wfs schema task > task.schema.json
    """
    from wfs.resources import read_text

    click.echo(read_text("schemas", f"{name}.schema.json"), nl=False)


# ---------------------------------------------------------------- mcp


@cli.command("mcp")
@pass_env
def mcp_server(env: Env) -> None:
    """Serve wfs to an MCP client over stdio (needs the extra: pip install 'wfs[mcp]').

    Eight tools (status, next, task_show, plan, validate, execute, resume, switch)
    answer with the JSON of the matching command and its exit code; the JSON Schemas
    and each session's TODO_LIST.md are resources; `plan` and `execute` are prompts.
    --root and --session given to `wfs` apply to every call.

    \b
    Example:
      claude mcp add wfs -- wfs mcp
    """
    try:
        from wfs.mcp_server import serve
    except ImportError as err:
        if (err.name or "").startswith("wfs"):
            raise
        raise WfsError(
            "wfs mcp needs the MCP Python SDK 2.x (mcp>=2.3,<3), which is not installed; "
            "install it with: pip install 'wfs[mcp]'"
        ) from None
    serve(env.layout, env.session, _root_option(env))


# ---------------------------------------------------------------- agents

# The keys of wfs.agents_install.TARGETS, spelled out so that `wfs --help` stays fast.
AGENT_TARGETS = (
    "claude",
    "gemini",
    "codex",
    "cursor",
    "copilot",
    "opencode",
    "qwen",
    "windsurf",
    "agents-md",
)


@cli.group()
def agents() -> None:
    """Editor commands, skills and agent definitions: install, check, remove, list.

    \b
    Example:
      wfs agents install --target claude
    """


@agents.command("install")
@click.option(
    "--target",
    type=click.Choice(AGENT_TARGETS),
    help="The editor. Needed, except with --check (which then checks only this one).",
)
@click.option("--force", is_flag=True, help="Replace (or remove) files that differ from wfs's.")
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing; exit 1 if an installed file is missing or stale (all targets "
    "installed, or --target).",
)
@click.option("--remove", is_flag=True, help="Remove the files wfs installed for --target.")
@click.option(
    "--allow-shell",
    is_flag=True,
    help="gemini: also the user policy ~/.gemini/policies/wfs.toml that lets Gemini CLI "
    "run wfs commands without asking.",
)
@click.option(
    "--mcp/--no-mcp",
    default=None,
    help="claude: also (or not) the server `wfs mcp` in .mcp.json. Default: installed "
    "when the mcp extra is (pip install 'wfs[mcp]'), kept when already there.",
)
@json_flag
@pass_env
def agents_install(
    env: Env,
    target: str | None,
    force: bool,
    check: bool,
    remove: bool,
    allow_shell: bool,
    mcp: bool | None,
) -> None:
    """Install the wfs commands and agent definitions for an editor.

    Files go under the project root. Claude Code, Gemini CLI and Codex CLI also get a
    SessionStart hook running `wfs prime` in their settings file, and AGENTS.md,
    CLAUDE.md and GEMINI.md a marked block: the rest of those files is left alone. A
    file (or entry) that exists and differs is only replaced with --force; without it
    nothing is written and the command exits 2. Installing twice changes nothing.
    --remove deletes only what wfs installed, and restores nothing else.

    \b
    Example:
      wfs agents install --target claude
      wfs agents install --target gemini --allow-shell
      wfs agents install --check
      wfs agents install --target codex --remove
    """
    from wfs import agents_install as installer

    if check and remove:
        raise click.UsageError("give at most one of --check and --remove")
    if allow_shell and target != "gemini":
        raise click.UsageError("--allow-shell goes with --target gemini")
    if mcp is not None and target != "claude":
        raise click.UsageError("--mcp and --no-mcp go with --target claude")
    mode = {True: "on", False: "off", None: "keep"}[mcp]
    if check:
        _agents_check(env, installer, target, allow_shell, mode)
        return
    if target is None:
        raise click.UsageError("Missing option '--target'.")
    if remove:
        actions = installer.remove(env.layout, target, force, allow_shell, mode)
    else:
        if mcp is None and target == "claude" and installer.mcp_extra_installed():
            mode = "add"
        actions = installer.install(env.layout, target, force, allow_shell, mode)
    rows = [{"path": path, "action": action} for path, action in actions]

    def human() -> None:
        env.lines([f"{row['action']}: {row['path']}" for row in rows])
        if allow_shell and not remove:
            env.echo(
                "The user policy ~/.gemini/policies/wfs.toml lets Gemini CLI run `wfs ...` "
                "shell commands without asking, in every project; other policies are "
                "left alone.",
                err=True,
            )

    env.emit({"target": target, "files": rows}, human)


def _agents_check(
    env: Env, installer: Any, target: str | None, allow_shell: bool, mcp: str
) -> None:
    checked = installer.check(env.layout, [target] if target else None, allow_shell, mcp)
    rows = [{"target": c.target, "path": c.relative, "state": c.state} for c in checked]
    problems = [row for row in rows if row["state"] != "installed"]

    def human() -> None:
        if not rows:
            env.echo("no wfs editor files are installed here")
        for name in dict.fromkeys(row["target"] for row in rows):
            mine = [row for row in rows if row["target"] == name]
            bad = [row for row in mine if row["state"] != "installed"]
            if not bad:
                env.echo(f"{name}: {len(mine)} files installed and up to date")
            for row in bad:
                env.echo(f"{name}: {row['state']}: {row['path']}")
        if problems:
            fix = f" --target {target}" if target else " --target T"
            env.echo(f"fix with: wfs agents install{fix} --force", err=True)

    env.emit({"files": rows, "problems": len(problems)}, human)
    if problems:
        raise SystemExit(1)


@agents.command("list")
@click.option("--target", type=click.Choice(AGENT_TARGETS), help="Only this editor (default: all).")
@json_flag
@pass_env
def agents_list(env: Env, target: str | None) -> None:
    """List the files each editor gets, and whether this project has them up to date.

    State: installed (identical), differs (changed or outdated), missing.

    \b
    Example:
      wfs agents list --target codex
    """
    from wfs.agents_install import plan_install

    names = {"same": "installed", "differs": "differs", "missing": "missing"}
    rows = [
        {"target": name, "path": item.relative, "state": names[item.state]}
        for name in ([target] if target else AGENT_TARGETS)
        for item in plan_install(env.layout, name)
    ]
    width = max(len(name) for name in AGENT_TARGETS)
    env.emit(
        {"files": rows},
        lambda: env.echo(
            "\n".join(f"{row['target']:<{width}} {row['state']:<10} {row['path']}" for row in rows)
        ),
    )


# ---------------------------------------------------------------- diff


@cli.command("diff")
@click.argument("revision", metavar="[REV|A..B|A...B]", required=False)
@click.option("--exit-code", is_flag=True, help="Exit 1 when the plans differ.")
@json_flag
@pass_env
def diff(env: Env, revision: str | None, exit_code: bool) -> None:
    """Show plan changes task by task: git revision REV (default HEAD) vs the working tree.

    Per session: tasks added, removed and changed (status, title, dependencies,
    pre_analysis and implementation_approach steps, other fields by JSON path).
    A..B compares two revisions; A...B shows what branch B changed since it left A.
    Exits 0 whether or not the plans differ, unless --exit-code is given.

    \b
    Example:
      wfs diff
      wfs diff main...my-branch --json
    """
    from wfs.review import diff_plans, sides

    report = diff_plans(*sides(env.layout, revision))
    env.emit(report, lambda: _print_diff(env, report))
    if exit_code and report["changed"]:
        click.get_current_context().exit(1)


def _side_name(side: dict[str, Any]) -> str:
    return str(side["rev"]) if side["rev"] is not None else "the working tree"


def _short(value: Any) -> str | None:
    """A scalar as JSON when it fits on a line; None for lists, objects, long text."""
    import json

    if isinstance(value, dict | list):
        return None
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else None


def _print_diff(env: Env, report: dict[str, Any]) -> None:
    old, new = _side_name(report["from"]), _side_name(report["to"])
    if not report["changed"]:
        env.echo(f"No plan changes between {old} and {new}.")
        return
    marks = {
        "added": env.style("+", fg="green"),
        "removed": env.style("-", fg="red"),
        "changed": env.style("~", fg="yellow"),
    }
    env.echo(f"Plan changes from {old} to {new}:")
    for session in report["sessions"]:
        note = {"added": " (new session)", "removed": " (session removed)"}.get(
            session["status"], ""
        )
        env.echo("")
        env.echo(env.style(session["session"], bold=True) + note)
        fields = [_field_text(f) for f in session["fields"]]
        if fields:
            env.echo(f"  session: {'; '.join(fields)}")
        tasks = session["tasks"]
        for kind in ("added", "removed"):
            for task in tasks[kind]:
                env.echo(f"  {marks[kind]} {task['id']}  {task['title']}  [{task['status']}]")
        for task in tasks["changed"]:
            env.echo(f"  {marks['changed']} {task['id']}  {task['title']}")
            for line in _task_change_lines(task["changes"], marks):
                env.echo(f"      {line}")
    env.echo("")
    env.echo(_diff_totals(report["summary"]))


def _field_text(field: dict[str, Any]) -> str:
    if field["change"] == "changed":
        old, new = _short(field["old"]), _short(field["new"])
        if old is not None and new is not None:
            return f"{field['path']} {old} → {new}"
    return f"{field['path']} {field['change']}"


def _task_change_lines(changes: dict[str, Any], marks: dict[str, str]) -> list[str]:
    lines = []
    if "status" in changes:
        lines.append(f"status: {changes['status']['old']} → {changes['status']['new']}")
    if "title" in changes:
        title = changes["title"]
        lines.append(f"title: {_short(title['old'])} → {_short(title['new'])}")
    if "depends_on" in changes:
        deps = changes["depends_on"]
        moved = [f"+{d}" for d in deps["added"]] + [f"-{d}" for d in deps["removed"]]
        lines.append(f"depends_on: {' '.join(moved) or 'reordered'}")
    for step in changes.get("steps", []):
        where = step["list"]
        if step["change"] == "reordered":
            lines.append(f"{marks['changed']} {where} reordered: {', '.join(step['order'])}")
            continue
        text = f"{marks[step['change']]} {where}[{step['index']}] {step['name']}"
        if step["change"] == "changed":
            text += f": {', '.join(step['fields'])}"
        lines.append(text)
    for field in changes.get("fields", []):
        lines.append(f"{marks[field['change']]} {_field_text(field)}")
    return lines


def _diff_totals(summary: dict[str, Any]) -> str:
    def count(number: int, noun: str) -> str:
        return f"{number} {noun}{'' if number == 1 else 's'}"

    sessions = [f"{count(n, 'session')} {kind}" for kind, n in summary["sessions"].items() if n]
    tasks = summary["tasks"]
    return (
        f"{', '.join(sessions)}; tasks: {tasks['added']} added, {tasks['removed']} removed, "
        f"{tasks['changed']} changed"
    )


# ---------------------------------------------------------------- git merge support

_DRIVER_FILE = click.Path(exists=True, dir_okay=False)


@cli.command("merge-views", hidden=True)
@click.argument("base", type=_DRIVER_FILE)
@click.argument("ours", type=_DRIVER_FILE)
@click.argument("theirs", type=_DRIVER_FILE)
@click.argument("path", required=False, default="")
def merge_views(base: str, ours: str, theirs: str, path: str) -> None:
    """Git merge driver for the generated views: leave a conflict-free file in OURS.

    The views are re-rendered from the merged JSON by the post-merge hook (or by
    `wfs render`); `wfs init` sets up both.

    \b
    Example:
      git config merge.wfs-views.driver "wfs merge-views %O %A %B %P"
    """
    from pathlib import Path

    from wfs.merge import merge_views as run_driver

    run_driver(Path(base), Path(ours), Path(theirs))


@cli.command("merge-json", hidden=True)
@click.argument("base", type=_DRIVER_FILE)
@click.argument("ours", type=_DRIVER_FILE)
@click.argument("theirs", type=_DRIVER_FILE)
@click.argument("path", required=False, default="")
def merge_json(base: str, ours: str, theirs: str, path: str) -> None:
    """Git merge driver for task and session JSON: merge field by field into OURS.

    Exits 1, leaving git's usual conflict markers, when both sides changed one value.

    \b
    Example:
      git config merge.wfs-json.driver "wfs merge-json %O %A %B %P"
    """
    from pathlib import Path

    from wfs.merge import merge_json as run_driver

    if run_driver(Path(base), Path(ours), Path(theirs), path or Path(ours).name):
        click.get_current_context().exit(1)


@cli.group(hidden=True)
def hook() -> None:
    """Git hooks installed by `wfs init`.

    \b
    Example:
      wfs hook pre-merge-commit
    """


@hook.command("pre-merge-commit")
@pass_env
def hook_pre_merge_commit(env: Env) -> None:
    """Note that git is about to make a merge commit (post-merge then finishes it).

    \b
    Example:
      wfs hook pre-merge-commit
    """
    from wfs.merge import note_merge_commit

    note_merge_commit(env.layout)


@hook.command("post-merge")
@click.argument("squash", required=False, default="0")
@json_flag
@pass_env
def hook_post_merge(env: Env, squash: str) -> None:
    """Put fresh views of every session a merge touched into the merge commit.

    After `git merge --squash` (SQUASH is 1), re-render and stage them instead.

    \b
    Example:
      wfs hook post-merge 0
    """
    from wfs.merge import after_merge

    result = after_merge(env.layout, squash == "1")
    data = {
        "sessions": [r._asdict() for r in result.sessions],
        "commit": result.commit,
        "staged": result.staged,
        "note": result.note,
    }

    def human() -> None:
        written = [p for r in result.sessions for p in r.written]
        if result.commit:
            env.echo(f"wfs: merge commit {result.commit[:12]} now holds fresh plan views")
        elif result.staged:
            env.echo(f"wfs: re-rendered and staged {', '.join(result.staged)}")
        elif written:
            env.echo(f"wfs: re-rendered {', '.join(written)}")

    env.emit(data, human)
    for row in result.sessions:
        if row.error:
            env.echo(f"wfs: warning: {row.session}: views not re-rendered: {row.error}", err=True)
    if result.note:
        env.echo(f"wfs: {result.note}", err=True)


def main() -> None:
    cli(prog_name="wfs")
