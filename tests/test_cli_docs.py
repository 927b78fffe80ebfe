"""docs/cli.md is generated from the click commands and cannot drift from them."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from types import ModuleType

import click
import pytest
from conftest import REPO

from wfs.cli import cli

SCRIPT = REPO / "scripts" / "gen_cli_docs.py"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = load_generator()


def all_commands() -> list[tuple[str, click.Command]]:
    root = click.Context(cli, info_name="wfs")
    return [(ctx.command_path, ctx.command) for ctx in gen.walk(cli, root)]


def test_committed_cli_reference_matches_the_commands() -> None:
    committed = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert gen.render(cli) == committed, (
        "docs/cli.md is out of date; run `python scripts/gen_cli_docs.py`"
    )


def test_generator_is_deterministic_and_ignores_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = gen.render(cli)
    monkeypatch.setenv("COLUMNS", "20")
    assert gen.render(cli) == first


@pytest.mark.slow
def test_check_mode_of_the_script_passes_on_the_committed_file() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_reference_has_a_section_for_every_command_with_its_usage() -> None:
    text = gen.render(cli)
    paths = [path for path, _ in all_commands()]
    assert "wfs task show" in paths and "wfs session list" in paths
    for path in paths:
        assert f"\n## `{path}`\n" in text
        assert f"\n```text\n{path} [OPTIONS]" in text
    assert "- `--depends-on ID`: Task this one waits for (repeatable).\n" in text
    assert "- `STATUS`: one of `pending`, `active`, `completed`, `blocked`\n" in text
    assert "- [`wfs task show`](#wfs-task-show): Show one task:" in text


def test_markdown_specials_are_escaped_outside_code_only() -> None:
    assert gen.escape("KIND-<slug>.md in WFS-*/, `a*b <c>`") == (
        "KIND-\\<slug\\>.md in WFS-\\*/, `a*b <c>`"
    )


@pytest.mark.parametrize(("path", "command"), all_commands(), ids=[p for p, _ in all_commands()])
def test_every_command_has_a_one_line_summary_and_an_example(
    path: str, command: click.Command
) -> None:
    text = inspect.cleandoc(command.help or "")
    summary = text.split("\n\n")[0]
    assert summary.strip(), f"{path}: no help"
    assert "\n" not in summary, f"{path}: the first paragraph of the help is not one line"
    assert summary.endswith("."), f"{path}: {summary!r}"
    assert "\n\b\nExample:\n  " in text, f"{path}: no `Example:` block in its help"
