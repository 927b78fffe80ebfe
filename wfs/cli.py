"""The `wfs` command line: the root group, what every command shares, and errors.

Each command is in a small module of wfs/commands/ that parses its options, calls the
library and prints the result; a module is imported only when one of its commands runs
(or `--help` lists them all), as pip keeps its table of commands.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from wfs import __version__, jsonio, sessions, store
from wfs.commands import COMMANDS
from wfs.completion import complete_session_id
from wfs.errors import WfsError, os_error_message
from wfs.layout import Layout, find_root
from wfs.platform import shell_join
from wfs.text import for_terminal, printable

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
            self._layout = Layout(find_root(self._root))
            store.confine(self._layout.root)
        return self._layout

    def use_here(self) -> None:
        """Work in the current directory, whatever `.workflow/` is above it (`--here`)."""
        self._layout = Layout(Path.cwd().resolve())
        store.confine(self._layout.root)

    def current_session(self) -> str:
        return sessions.current_session(self.layout, self.session)

    def echo(self, text: str = "", *, err: bool = False) -> None:
        self.lines([text], err=err)

    def style(self, text: str, **styles: Any) -> str:
        return click.style(text, **styles) if self.color else text

    def emit(self, data: Any, human: Callable[[], None]) -> None:
        """Print `data` as JSON with --json, else run the human formatter."""
        if self.json:
            sys.stdout.buffer.write(jsonio.dumps(data))
            sys.stdout.flush()
        else:
            human()

    def lines(self, lines: list[str], *, err: bool = False) -> None:
        """Print each line made safe for a terminal, in one write (10,000 rows of `task
        list` would be 10,000 calls of click.echo)."""
        if lines:
            # None lets click drop styles when the stream is not a terminal.
            text = "\n".join(map(for_terminal, lines))
            click.echo(text, err=err, color=None if self.color else False)


def _color_default() -> bool:
    return "NO_COLOR" not in os.environ


pass_env = click.make_pass_decorator(Env)


class WfsGroup(click.Group):
    """Loads each command from its module only when it runs (wfs/commands/), and turns
    library errors into a one-line message and the spec's exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        module, name = where.split(":")
        command: click.Command = getattr(importlib.import_module(f"wfs.commands.{module}"), name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WfsError as err:
            click.echo(f"wfs: error: {printable(err.message)}", err=True)
            ctx.exit(err.exit_code)
        except OSError as err:  # a full disk, a read-only file system, a permission...
            click.echo(f"wfs: error: {printable(_os_error(ctx, err))}", err=True)
            ctx.exit(2)


def _os_error(ctx: click.Context, err: OSError) -> str:
    layout = getattr(ctx.find_object(Env), "_layout", None)
    return os_error_message(err, layout.root if layout is not None else None)


@click.group(
    cls=WfsGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
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
    if ctx.invoked_subcommand is None:  # a bare `wfs` asks what it can do: not an error
        click.echo(ctx.get_help())
        ctx.exit(0)


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


# ---------------------------------------------------------------- shared by the commands


def refuse_unreadable(found: list[str] | None) -> None:
    """After answering from every task that could be read: exit 2 naming each task file
    that could not (file, line, column, reason)."""
    if found:
        raise WfsError("\n".join(found))


def root_option(env: Env) -> str | None:
    """The project root when `--root` was given on the command line, else None.

    The commands we print (`resume`) keep it, so they work from wherever this one ran.
    """
    root_ctx = click.get_current_context().find_root()
    given = root_ctx.get_parameter_source("root") == ParameterSource.COMMANDLINE
    return str(env.layout.root) if given else None


def progress_lines(env: Env) -> Callable[[str], None]:
    """Where a long command says what it is doing: stderr, unless --json."""
    if env.json:
        return lambda line: None
    return lambda line: env.echo(f"wfs: {line}", err=True)


def refused_answer(env: Env, failed: Any, fix: list[str], again: list[str]) -> None:
    """The planning agent gave no valid answer (wfs.planning.PlanningFailed): its last
    problems and the ways on, `fix` + the kept draft and `again`; exit 1."""
    fixed = None if failed.draft is None else shell_join([*fix, failed.draft])
    retry = shell_join(again)
    data = {
        "written": False,
        "problems": failed.problems,
        "draft": failed.draft,
        "next": [c for c in (fixed, retry) if c],
    }

    def human() -> None:
        env.echo(f"wfs: error: {failed.message}", err=True)
        if fixed is not None:
            env.echo(f"The last answer is kept in {failed.draft}: fix it, then run", err=True)
            env.echo(f"  {fixed}", err=True)
        env.echo("Or ask the agent again, with more rounds:", err=True)
        env.echo(f"  {retry}", err=True)

    env.emit(data, human)
    click.get_current_context().exit(failed.exit_code)


def main() -> None:
    cli(prog_name="wfs")
