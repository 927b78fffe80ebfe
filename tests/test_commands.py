"""The command line is one small module per command group (wfs/commands/), loaded only
when one of its commands runs; the root group (wfs/cli.py) knows them by name."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import click
from conftest import wfs

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


def test_help_lists_every_visible_command_and_an_unknown_one_is_refused() -> None:
    shown = wfs("--help")
    assert shown.code == 0
    listed = shown.out.split("Commands:", 1)[1].split()
    for name in COMMANDS:
        assert (name in listed) == (name not in HIDDEN), name
    unknown = wfs("statu")
    assert unknown.code == 2
    assert "No such command 'statu'." in unknown.err


WHAT_WAS_IMPORTED = """
import sys
from wfs.fastpath import main
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


def test_a_command_imports_only_the_module_of_its_group(project: Path) -> None:
    tasks = [{"id": "IMPL-1", "title": "A"}]
    assert wfs("plan", "Lazy", "--from", "-", input=json.dumps(tasks)).code == 0
    assert _command_modules(project, "validate") == {"wfs.commands", "wfs.commands.check"}
    assert _command_modules(project, "session", "list") == {
        "wfs.commands",
        "wfs.commands.session",
    }
    assert _command_modules(project, "task", "list") == {"wfs.commands", "wfs.commands.task"}
    # `status` is answered without click at all, from the index a command above saved.
    assert _command_modules(project, "status") == set()
