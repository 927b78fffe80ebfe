"""A run's bash steps are forked by one resident bash (wfs/platform/resident.py), and
each keeps what a bash of its own gave it: its process group, its own stdout and stderr
until everything that holds them has ended, its folder and environment, its exit code,
a timeout that ends it alone. A resident bash that dies is replaced."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import posix_only, read_json, wfs
from test_execute_word import step

from wfs import platform

pytestmark = posix_only

SID = "WFS-resident"


def planned(*steps: dict[str, Any]) -> None:
    wfs("init", "--no-git")
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Resident",
            "flow_control": {"implementation_approach": list(steps)},
        }
    ]
    run = wfs("plan", "Resident", "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    assert run.out.strip() == SID


def status(project: Path) -> str:
    task = read_json(project / ".workflow" / SID / ".task" / "IMPL-1.json")
    return str(task["status"])


def record(project: Path) -> dict[str, Any]:
    """The run record, written whole once the run stops."""
    return dict(read_json(project / ".workflow" / SID / ".runs" / "IMPL-1.json"))


@pytest.mark.slow
def test_the_steps_of_a_run_share_one_bash_each_in_a_group_of_its_own(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$$ is the resident bash's pid in every step; each step is a process of its own
    ($BASHPID), the leader of its own process group, whose parent is the resident.
    The resident's folder of step scripts is gone with the run."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    line = "bash(me=$BASHPID; echo $$ $me $(ps -o pgid= -p $me) $(ps -o ppid= -p $me) > {})"
    planned(step(1, line.format("one")), step(2, line.format("two")))
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    one = [int(n) for n in (project / "one").read_text().split()]
    two = [int(n) for n in (project / "two").read_text().split()]
    assert one[0] == two[0]  # one resident bash
    assert len({one[0], one[1], two[1]}) == 3  # each step a process of its own
    assert one[2] == one[1] and two[2] == two[1]  # leading a group of its own
    assert one[3] == one[0] and two[3] == two[0]  # forked by the resident
    assert os.listdir(temp) == []


@pytest.mark.slow
def test_a_step_gets_its_folder_environment_and_streams_as_its_own_bash(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFS_TEST_ODD", "a 'quoted' $value\nover two lines")
    monkeypatch.delenv("OLDPWD", raising=False)
    planned(
        step(1, "bash(printf 'one\\ntwo')"),
        step(
            2,
            'bash(printf "%s|" "$PWD" "$WFS_TEST_ODD" "${OLDPWD-unset}" "${__wfs_step-unset}" '
            '"${WFS_STEP%%/IMPL-1/*}" "$0" "$LINENO" "[out1]" > seen; read -r x || echo no stdin)',
        ),
        step(3, "bash(echo to stderr >&2; exit 3)", on_error="skip_optional"),
    )
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    seen = (project / "seen").read_text().split("|")
    assert seen[:-1] == [
        str(project),
        "a 'quoted' $value\nover two lines",
        "unset",
        "unset",
        SID,
        platform.find_bash(),
        "1",
        "one\ntwo",
    ]
    steps = record(project)["steps"]
    assert steps["implementation_approach/2"]["output"] == "no stdin"
    third = steps["implementation_approach/3"]
    assert third["status"] == "skipped"
    assert third["tries"][0]["exit_code"] == 3
    assert third["tries"][0]["stderr"] == "to stderr\n"


@pytest.mark.slow
def test_a_step_lasts_while_a_process_it_started_holds_its_output(project: Path) -> None:
    """As with a bash of its own, what a step starts in the background and that still
    writes to its output is part of it; what it starts with its output elsewhere is
    not, and outlives it."""
    planned(
        step(1, "bash((sleep 1; echo late) & echo early)"),
        step(2, "bash(sleep 300 >/dev/null 2>&1 & echo $! > sleeper)", timeout=120),
    )
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    steps = record(project)["steps"]
    assert steps["implementation_approach/1"]["output"] == "early\nlate"
    assert steps["implementation_approach/2"]["status"] == "done"
    sleeper = int((project / "sleeper").read_text())
    os.kill(sleeper, 0)  # still running: the step did not wait for it, nor kill it
    os.kill(sleeper, signal.SIGKILL)


@pytest.mark.slow
def test_a_timeout_ends_its_step_alone_and_the_next_step_runs(project: Path) -> None:
    planned(
        step(
            1,
            "bash(echo $$ > resident; sleep 300 & echo started; wait)",
            timeout=1,
            on_error="skip_optional",
        ),
        step(2, "bash(echo $$ > after)"),
    )
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    first = record(project)["steps"]["implementation_approach/1"]
    assert first["status"] == "skipped"
    assert first["tries"][0]["exit_code"] == 124
    assert first["tries"][0]["stdout"] == "started\n"
    assert (project / "after").read_text() == (project / "resident").read_text()
    assert status(project) == "completed"


@pytest.mark.slow
def test_a_resident_bash_that_dies_fails_its_step_and_is_replaced(project: Path) -> None:
    planned(
        step(1, "bash(echo $$ > resident; kill -KILL $$)", on_error="skip_optional"),
        step(2, "bash(echo $$ > after)"),
    )
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    first = record(project)["steps"]["implementation_approach/1"]
    assert first["status"] == "skipped"
    assert first["tries"][0]["exit_code"] == 128 + signal.SIGKILL
    assert (project / "after").read_text() != (project / "resident").read_text()
    assert status(project) == "completed"


def test_outside_a_run_of_steps_there_is_no_resident_bash() -> None:
    bash = platform.find_bash()
    assert bash is not None
    assert platform.resident(bash) is None
    with platform.run_of_steps():
        shell = platform.resident(bash)
        assert shell is not None and platform.resident(bash) is shell
        folder = shell.folder
    assert shell.process.returncode is not None
    assert not os.path.exists(folder)
    assert subprocess.run(["true"]).returncode == 0


def test_a_resident_bash_abandoned_twice_closes_nothing_the_second_time() -> None:
    """Its script's descriptor is closed once: a file opened since may have its number."""
    bash = platform.find_bash()
    assert bash is not None
    with platform.run_of_steps():
        shell = platform.resident(bash)
        assert shell is not None
        number = shell.script
        shell.abandon()
        reused = os.open(os.devnull, os.O_RDONLY)
        try:
            assert reused == number  # the lowest free number: the script's
            shell.abandon()
            os.fstat(reused)  # still open
        finally:
            os.close(reused)
        assert platform.resident(bash) is not shell  # a new one takes its place


def test_the_folder_a_killed_run_left_goes_with_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's folder is named by its wfs's pid and host: one whose wfs no longer runs
    on this machine is removed when a resident bash next starts; one of a live wfs, or
    of another machine sharing the temporary folder (a container), is kept."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    module = importlib.import_module("wfs.platform.resident")  # (the package names a function so)
    monkeypatch.setattr(module, "host_name", lambda: "build-box.local")
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is free now (reused by another process only rarely)
    left = temp / f"wfs-steps-{dead.pid}-build-box.local-abcd1234"
    live = temp / f"wfs-steps-{os.getppid()}-build-box.local-abcd1234"
    elsewhere = temp / f"wfs-steps-{dead.pid}-other-box-abcd1234"
    other = temp / "wfs-steps-notapid"
    for folder in (left, live, elsewhere, other):
        folder.mkdir()
        (folder / "step").write_text("echo left")
    bash = platform.find_bash()
    assert bash is not None
    with platform.run_of_steps():
        shell = platform.resident(bash)
        assert shell is not None
        ours = os.path.basename(shell.folder)
        assert ours.startswith(f"wfs-steps-{os.getpid()}-build-box.local-")
        kept = [live.name, elsewhere.name, other.name]
        assert sorted(os.listdir(temp)) == sorted([ours, *kept])
    assert sorted(os.listdir(temp)) == sorted(kept)
