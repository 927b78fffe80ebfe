"""The `wfs` command line: the root group, what every command shares, and errors.

Each command is in a small module of wfs/commands/ that parses its options, calls the
library and prints the result; a module is imported only when one of its commands runs
(or `--help` lists them all), as pip keeps its table of commands.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from wfs import __version__, jsonio, sessions, store
from wfs.commands import COMMANDS, WITHOUT_PROJECT
from wfs.completion import complete_session_id
from wfs.errors import NotAProjectError, WfsError, os_error_message
from wfs.index import load_skeletons
from wfs.layout import Layout, find_root, typed_task_id
from wfs.platform import shell_join
from wfs.tasks import chosen_task_id
from wfs.text import for_terminal, printable

F = TypeVar("F", bound=Callable[..., Any])


class Env:
    """What every command needs: the project, the chosen session, output settings."""

    def __init__(
        self,
        root: str | None,
        session: str | None,
        json: bool,
        color: bool,
        *,
        root_given: bool = False,
        needs_project: bool = False,
    ) -> None:
        self._root = root
        self.session = session
        self.json = json
        self.color = color
        # `--root` was on the command line (not from WFS_ROOT): see root_option.
        self.root_given = root_given
        # The command reads a plan: outside a project it says so (not_a_project).
        self.needs_project = needs_project
        self._layout: Any = None

    @property
    def layout(self) -> Any:
        if self._layout is None:
            layout = Layout(find_root(self._root))
            if self.needs_project and not layout.workflow.is_dir():
                raise not_a_project(layout.root, self._root or os.environ.get("WFS_ROOT"))
            self._layout = layout
            store.confine(layout.root)
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


def not_a_project(root: Any, chosen: str | None) -> NotAProjectError:
    """The error of a command that reads a plan where there is none (exit 2)."""
    where = f"{root}" if chosen else f"{root} or above"
    return NotAProjectError(
        f"not in a wfs project: no .workflow/ in {where}; "
        "run `wfs init` to start one here (or give --root DIR)"
    )


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
        return with_global_options(command)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # click suggests from the commands a group holds; ours are loaded on demand.
        name = args[0] if args else ""
        if name not in COMMANDS and not name.startswith("-") and not ctx.resilient_parsing:
            import difflib  # deferred: only on this error path

            close = difflib.get_close_matches(name, sorted(COMMANDS), n=3)
            if close:
                ctx.fail(
                    f"No such command {name!r}. Did you mean "
                    + " or ".join(repr(c) for c in close)
                    + "?"
                )
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with sessions.telling(_tell_once()):
                return super().invoke(ctx)
        except WfsError as err:
            click.echo(f"wfs: error: {printable(err.message)}", err=True)
            ctx.exit(err.exit_code)
        except OSError as err:  # a full disk, a read-only file system, a permission...
            click.echo(f"wfs: error: {printable(_os_error(ctx, err))}", err=True)
            ctx.exit(2)


def _tell_once() -> Callable[[str], None]:
    """Say on stderr (never on stdout, which --json keeps for its answer) which session
    a command chose by itself; once, however many times it is chosen."""
    told: set[str] = set()

    def tell(text: str) -> None:
        if text not in told:
            told.add(text)
            click.echo(f"wfs: {printable(text)}", err=True)

    return tell


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

    \b
    Shell completion (commands, options, session and task ids), set up once:
      bash, in ~/.bashrc:  eval "$(_WFS_COMPLETE=bash_source wfs)"
      zsh, in ~/.zshrc:    eval "$(_WFS_COMPLETE=zsh_source wfs)"
      fish:                _WFS_COMPLETE=fish_source wfs > ~/.config/fish/completions/wfs.fish
    """
    ctx.obj = Env(
        root,
        session,
        json_out,
        color=_color_default() and not no_color,
        root_given=ctx.get_parameter_source("root") == ParameterSource.COMMANDLINE,
        needs_project=ctx.invoked_subcommand not in WITHOUT_PROJECT,
    )
    if ctx.invoked_subcommand is None:  # a bare `wfs` asks what it can do: not an error
        click.echo(ctx.get_help())
        ctx.exit(0)


# The root group's options are accepted after the subcommand too (SPEC §4: `wfs status
# --session X`, `wfs task list --root DIR`): each command, and each command of a nested
# group, gets them when it is loaded. Given there, they set what the root's did (the
# environment variables are read by the root's options only).
def _set_root(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    env = ctx.find_object(Env)
    if value is not None and env is not None:
        env._root, env.root_given, env._layout = value, True, None


def _set_session(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    env = ctx.find_object(Env)
    if value is not None and env is not None:
        env.session = value


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    env = ctx.find_object(Env)
    if value and env is not None:
        env.json = True


def _set_no_color(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    env = ctx.find_object(Env)
    if value and env is not None:
        env.color = False


def _global_options() -> list[click.Option]:
    return [
        # --root and --session first, wherever they are typed: a task id before them is
        # read in their session (typed_task_ids).
        click.Option(
            ["--root", "global_root"],
            metavar="DIR",
            expose_value=False,
            is_eager=True,
            callback=_set_root,
            help="Project root (as `wfs --root DIR`).",
        ),
        click.Option(
            ["--session", "global_session"],
            metavar="ID",
            expose_value=False,
            is_eager=True,
            callback=_set_session,
            shell_complete=complete_session_id,
            help="Session to work on (as `wfs --session ID`).",
        ),
        click.Option(
            ["--json", "global_json"],
            is_flag=True,
            expose_value=False,
            callback=_set_json,
            help="Machine-readable output on stdout.",
        ),
        click.Option(
            ["--no-color", "global_no_color"],
            is_flag=True,
            expose_value=False,
            callback=_set_no_color,
            help="No colors (also when NO_COLOR is set).",
        ),
    ]


GLOBAL_MARK = "wfs_global_options"


def is_global_option(param: click.Parameter) -> bool:
    """Whether `param` is one of the root's options that with_global_options added
    (docs/cli.md lists them once, for `wfs`)."""
    return (param.name or "").startswith("global_")


def with_global_options(command: click.Command) -> click.Command:
    """`command` (and every command of a group) accepting the root group's options,
    except one it defines itself (`wfs plan --session ID` names the session to replan)."""
    if getattr(command, GLOBAL_MARK, False):
        return command
    taken = {opt for param in command.params for opt in param.opts}
    command.params.extend(o for o in _global_options() if not taken.intersection(o.opts))
    setattr(command, GLOBAL_MARK, True)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_global_options(sub)
    return command


# ---------------------------------------------------------------- shared by the commands


def typed_task_ids(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
    """The callback of a task id option or argument: each id as a person types it
    (`IMPL-2`, `impl-2`, `2`, `2.1`) taken as the id of the session's task it names
    (wfs.tasks.chosen_task_id); as typed when the session cannot be read (the command
    then says why)."""
    env = ctx.find_object(Env)
    values = value if isinstance(value, tuple) else (value,)
    if env is None or not any(isinstance(v, str) and typed_task_id(v) for v in values):
        return value
    try:
        known = [task["id"] for task in load_skeletons(env.layout, env.current_session())]
    except WfsError:
        return value
    chosen = tuple(chosen_task_id(v, known) if isinstance(v, str) else v for v in values)
    return chosen if isinstance(value, tuple) else chosen[0]


def refuse_unreadable(env: Env, found: list[str] | None) -> None:
    """After answering from every task that could be read, what every read command does
    about the files that could not (`found`: `file:line:column: reason` each): exit 2
    naming each, with the git commands that show what changed in it and restore it
    as committed (for a file git tracks)."""
    if not found:
        return
    from wfs import git  # deferred: only a read that met a broken file runs git

    root = env.layout.root
    files = {reason: _file_of(root, reason) for reason in found}
    kept = set(git.tracked(root, [f for f in files.values() if f is not None]))
    lines = []
    for reason, file in files.items():
        lines.append(reason)
        if file in kept:
            lines.append(f"  see what changed: {_git_line(root, 'diff', file)}")
            lines.append(f"  restore it as committed: {_git_line(root, 'checkout', file)}")
    raise WfsError("\n".join(lines))


def _file_of(root: Path, reason: str) -> str | None:
    """The project file a reason names first (`path.json:3:5: …`), if it is one."""
    head, found, _ = reason.partition(".json:")
    path = head + ".json"
    return path if found and (root / path).is_file() else None


def _git_line(root: Path, command: str, file: str) -> str:
    """`git COMMAND -- FILE` as typed from the current directory (from elsewhere than
    the project, with `-C ROOT`)."""
    here = Path.cwd().resolve()
    absolute = (root / file).resolve()
    if here == root.resolve() or root.resolve() in here.parents:
        return shell_join(["git", command, "--", os.path.relpath(absolute, here)])
    return shell_join(["git", "-C", str(root), command, "--", file])


def root_option(env: Env) -> str | None:
    """The project root when `--root` was given on the command line, else None.

    The commands we print (`resume`) keep it, so they work from wherever this one ran.
    """
    return str(env.layout.root) if env.root_given else None


def planning_agent_options(func: F) -> F:
    """--agent and --max-rounds of the commands that plan with an agent (`plan`,
    `task expand`)."""
    func = click.option(
        "--max-rounds",
        type=click.IntRange(min=1),
        default=3,
        show_default=True,
        help="How many answers the agent may give before wfs gives up.",
    )(func)
    return click.option(
        "--agent",
        metavar="CMD",
        help="The planning agent's command (default: the route @action-planning-agent of "
        ".workflow/config.json, else its default). Env: WFS_AGENT.",
    )(func)


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
    try:
        cli(prog_name="wfs")
    finally:
        # The process is ending: what it made is not collected again on the way out.
        # The interpreter's last collections over the objects of click, jinja2 and the
        # rest took some 30 ms of every command; exit handlers still run, and files
        # are still closed as their modules are cleared.
        gc.freeze()
