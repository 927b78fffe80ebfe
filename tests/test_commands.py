"""The command line is one small module per command group (wfs/commands/), loaded only
when one of its commands runs; the root group (wfs/cli.py) knows them by name."""

from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import wfs

from wfs import commands as command_package
from wfs.cli import cli
from wfs.commands import COMMANDS

HIDDEN = {"hook", "merge-json", "merge-views"}


def test_every_registered_command_loads_under_its_name() -> None:
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert isinstance(command, click.Command), name
        assert command.name == name
        assert command.hidden == (name in HIDDEN), name
    assert cli.get_command(ctx, "no-such-command") is None


def _module_commands() -> set[str]:
    """Every click command a module of wfs/commands/ defines, as `module:attribute`,
    except the subcommands of its groups."""
    found = set()
    for info in pkgutil.iter_modules(command_package.__path__):
        module = importlib.import_module(f"wfs.commands.{info.name}")
        defined = {
            name: value for name, value in vars(module).items() if isinstance(value, click.Command)
        }
        nested = {
            id(sub)
            for value in defined.values()
            if isinstance(value, click.Group)
            for sub in value.commands.values()
        }
        found |= {f"{info.name}:{name}" for name, c in defined.items() if id(c) not in nested}
    return found


def test_every_command_the_modules_define_is_registered_once() -> None:
    registered = list(COMMANDS.values())
    assert len(set(registered)) == len(registered)
    assert set(registered) == _module_commands()


def test_help_lists_every_visible_command_with_its_short_help() -> None:
    shown = wfs("--help")
    assert shown.code == 0
    listing = shown.out.split("Commands:", 1)[1].splitlines()
    rows = dict(line.split(None, 1) for line in listing if line.strip())
    ctx = click.Context(cli)
    for name in COMMANDS:
        assert (name in rows) == (name not in HIDDEN), name
        if name in rows:
            command = cli.get_command(ctx, name)
            assert command is not None
            text = rows[name].removesuffix("...")
            assert len(text) > 20 and command.get_short_help_str(1000).startswith(text), name


@pytest.mark.slow
def test_a_bare_wfs_shows_the_help_and_succeeds() -> None:
    bare, helped = (
        subprocess.run(
            [sys.executable, "-m", "wfs", *args], capture_output=True, text=True, timeout=120
        )
        for args in ([], ["--help"])
    )
    assert (bare.returncode, bare.stderr) == (0, "")
    assert bare.stdout == helped.stdout
    assert bare.stdout.startswith("Usage: wfs [OPTIONS] [COMMAND] [ARGS]...\n")


def test_an_unknown_command_is_refused() -> None:
    unknown = wfs("statu")
    assert unknown.code == 2
    assert "No such command 'statu'." in unknown.err


WHAT_WAS_IMPORTED = """
import sys
from wfs.cli import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith("wfs.commands"))))
"""


def _command_modules(project: Path, *args: str) -> set[str]:
    """The wfs.commands modules a real `wfs` process imports to run `args`."""
    proc = subprocess.run(
        [sys.executable, "-c", WHAT_WAS_IMPORTED, *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "WFS_SESSION"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(ast.literal_eval(proc.stderr.splitlines()[-1]))


@pytest.mark.slow
def test_a_command_imports_only_the_module_of_its_group(project: Path) -> None:
    tasks = [{"id": "IMPL-1", "title": "A"}]
    wfs("init", "--no-git")
    assert wfs("plan", "Lazy", "--from", "-", input=json.dumps(tasks)).code == 0
    assert _command_modules(project, "validate") == {"wfs.commands", "wfs.commands.check"}
    assert _command_modules(project, "session", "list") == {
        "wfs.commands",
        "wfs.commands.session",
    }
    assert _command_modules(project, "task", "list", "--ready") == {
        "wfs.commands",
        "wfs.commands.task",
    }
    assert _command_modules(project, "--no-color", "status", "--json") == {
        "wfs.commands",
        "wfs.commands.status",
    }


@pytest.mark.slow
def test_version_loads_no_command_module_and_a_command_help_only_its_own(project: Path) -> None:
    assert _command_modules(project, "--version") == {"wfs.commands"}
    assert _command_modules(project, "execute", "--help") == {
        "wfs.commands",
        "wfs.commands.execute",
        "wfs.commands.progress",
    }


def test_the_readme_names_the_module_of_every_command() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = {}
    for line in readme.split("| module of `wfs/commands/` |", 1)[1].splitlines()[2:]:
        if not line.startswith("| `"):
            break
        module, listed = line.strip("| ").split(" | ", 1)
        rows[module.strip("`").removesuffix(".py")] = listed
    modules = {info.name for info in pkgutil.iter_modules(command_package.__path__)}
    assert set(rows) == modules
    for name, where in COMMANDS.items():
        if name not in HIDDEN:
            assert f"`{name}" in rows[where.split(":")[0]], name


# What the click layer leaves to the library: files, processes, signals, locks, loops.
NOT_IN_THE_CLICK_LAYER = {"os", "shutil", "signal", "subprocess", "wfs.flow.signals"}


@pytest.mark.slow
def test_command_modules_only_parse_call_and_print() -> None:
    for path in sorted(Path(command_package.__path__[0]).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                assert not {a.name for a in node.names} & NOT_IN_THE_CLICK_LAYER, where
            elif isinstance(node, ast.ImportFrom):
                assert node.module not in NOT_IN_THE_CLICK_LAYER, where
                names = {f"{node.module}.{a.name}" for a in node.names}
                assert not names & NOT_IN_THE_CLICK_LAYER, where
            assert not isinstance(node, ast.While | ast.With | ast.AsyncWith), where
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", where
