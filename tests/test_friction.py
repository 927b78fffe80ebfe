"""The friction a newcomer meets on the most common commands (issue 29, points 4 and 5):
global options after the subcommand, commands outside a project, plans that cannot go
on, what an agent command receives, `task show` for a person, and the `.active-*`
markers kept out of commits."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from tests.conftest import wfs, wfs_process
from wfs.cli import cli


def write_plan(path: Path, tasks: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    return path


def two_sessions(project: Path) -> None:
    """Sessions WFS-one (paused) and WFS-two (active), with different tasks."""
    assert wfs("init").code == 0
    plan = write_plan(project / "one.json", [{"id": "IMPL-1", "title": "First of one"}])
    assert wfs("plan", "one", "--from", str(plan)).code == 0
    plan = write_plan(project / "two.json", [{"id": "IMPL-1", "title": "First of two"}])
    assert wfs("plan", "two", "--from", str(plan)).code == 0


# ------------------------------------------------------ global options after the command


def all_commands() -> list[tuple[list[str], click.Command]]:
    """(path, command) of every command and nested subcommand, as `wfs` loads them."""
    found = []
    root_ctx = click.Context(cli, info_name="wfs")

    def walk(group: click.Group, ctx: click.Context, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            found.append(([*path, name], command))
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx), [*path, name])

    walk(cli, root_ctx, [])
    return found


def test_every_command_lists_the_global_options_in_its_help() -> None:
    for path, _ in all_commands():
        shown = wfs(*path, "--help")
        assert shown.code == 0, path
        for option in ("--root DIR", "--session ID", "--json", "--no-color"):
            assert option in shown.out, (path, option)


def test_plan_keeps_its_own_session_option() -> None:
    commands = dict((" ".join(path), command) for path, command in all_commands())
    helps = [p.help for p in commands["plan"].params if "--session" in p.opts]
    assert helps == ["Add or replace tasks in this existing session instead."]


def test_session_after_the_subcommand_picks_the_session(project: Path) -> None:
    two_sessions(project)
    before = wfs("--session", "WFS-one", "status")
    after = wfs("status", "--session", "WFS-one")
    assert after.code == 0
    assert after.out == before.out
    assert after.out.startswith("Session:  WFS-one (paused)\n")
    listed = wfs("task", "list", "--session", "WFS-one")
    assert listed.out == "[ ] IMPL-1  First of one  pending\n"
    nested = wfs("task", "--session", "WFS-one", "list")
    assert nested.out == listed.out
    shown = wfs("task", "show", "IMPL-1", "--json", "--session", "WFS-one").json()
    assert shown["task"]["title"] == "First of one"


def test_root_after_the_subcommand_names_the_project(project: Path, tmp_path: Path) -> None:
    two_sessions(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = wfs_process("task", "list", "--root", str(project), cwd=elsewhere)
    assert (run.code, run.out) == (0, "[ ] IMPL-1  First of two  pending\n")
    # The commands it prints keep that root, as with `wfs --root DIR`.
    data = wfs_process("next", "--json", "--root", str(project), cwd=elsewhere)
    before = wfs_process("--root", str(project), "next", "--json", cwd=elsewhere)
    assert data.out == before.out


def test_no_color_after_the_subcommand_drops_the_colors(project: Path) -> None:
    two_sessions(project)
    assert "\x1b[" in wfs("status", color=True).out
    assert "\x1b[" not in wfs("status", "--no-color", color=True).out


def test_json_after_a_nested_subcommand(project: Path) -> None:
    two_sessions(project)
    rows = wfs("session", "list", "--json").json()
    assert [row["id"] for row in rows["sessions"]] == ["WFS-one", "WFS-two"]


# ----------------------------------------------------------------- outside a project

NO_PROJECT = "run `wfs init` to start one here (or give --root DIR)"


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["next"],
        ["doctor"],
        ["doctor", "--fix"],
        ["validate"],
        ["task", "list"],
        ["task", "show", "IMPL-1"],
        ["session", "list"],
        ["session", "show"],
        ["execute", "--dry-run"],
        ["render"],
        ["diff"],
        ["prime"],
        ["switch", "x"],
        ["migrate"],
    ],
)
def test_outside_a_project_a_command_that_reads_a_plan_says_so(
    project: Path, args: list[str]
) -> None:
    run = wfs(*args)
    assert run.code == 2
    assert run.out == ""
    assert (
        run.err
        == f"wfs: error: not in a wfs project: no .workflow/ in {project} or above; {NO_PROJECT}\n"
    )
    assert list(project.iterdir()) == []  # nothing was created


def test_a_root_without_a_project_is_named(project: Path, tmp_path: Path) -> None:
    run = wfs("status", env={"WFS_ROOT": str(tmp_path)})
    assert run.code == 2
    assert (
        run.err == f"wfs: error: not in a wfs project: no .workflow/ in {tmp_path}; {NO_PROJECT}\n"
    )


def test_outside_a_project_the_hook_still_prints_hook_json(project: Path) -> None:
    run = wfs("prime", "--hook-json")
    assert run.code == 0
    text = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(
        f"wfs: not in a wfs project: no .workflow/ in {project} or above; {NO_PROJECT}\n"
        "Ground rules:\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["schema", "task"],
        ["agents", "list"],
        ["merge-json", "--help"],
        ["init"],
    ],
)
def test_outside_a_project_what_needs_none_works(project: Path, args: list[str]) -> None:
    run = wfs(*args)
    assert run.code == 0, run.err
    assert "not in a wfs project" not in run.err


def test_a_subfolder_of_a_project_is_in_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_sessions(project)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert wfs("status").code == 0
