"""Shell completion through the real `wfs` program: click's scripts, and completion of
commands, session ids and task ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import wfs

BIN = Path(sys.executable).parent
WFS = str(BIN / "wfs")
NOTHING = "\n"  # what click prints when there is no candidate


def complete(cwd: Path, shell: str, words: str, cword: int | str = "", **env: str) -> str:
    """What `wfs` answers a shell asking to complete `words`."""
    full_env = {
        **os.environ,
        "_WFS_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
        **env,
    }
    proc = subprocess.run([WFS], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")
    return proc.stdout


def bash_complete(cwd: Path, line: str) -> str:
    words = line.split(" ")
    return complete(cwd, "bash", line, len(words) - 1)


@pytest.fixture
def planned(project: Path) -> Path:
    """Two sessions, WFS-alpha (paused) and WFS-beta (active, tasks IMPL-1, 1.1, 1.2, 2)."""
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "Old"}]))
    tasks = [
        {"id": "IMPL-1", "title": "Auth"},
        {"id": "IMPL-1.1", "title": "Design"},
        {"id": "IMPL-1.2", "title": "Build", "context": {"depends_on": ["IMPL-1.1"]}},
        {"id": "IMPL-2", "title": "Docs"},
    ]
    assert wfs("plan", "Beta", "--from", "-", input=json.dumps(tasks)).code == 0
    return project


def test_bash_source_prints_a_bash_completion_script(tmp_path: Path) -> None:
    env = {**os.environ, "_WFS_COMPLETE": "bash_source"}
    proc = subprocess.run([WFS], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith("_wfs_completion() {\n")
    assert "_WFS_COMPLETE=bash_complete" in proc.stdout
    assert proc.stdout.rstrip().endswith("_wfs_completion_setup;")
    syntax = subprocess.run(["bash", "-n"], input=proc.stdout, capture_output=True, text=True)
    assert (syntax.returncode, syntax.stderr) == (0, "")


@pytest.mark.parametrize(
    ("shell", "start"), [("zsh", "#compdef wfs\n"), ("fish", "function _wfs_completion;\n")]
)
def test_zsh_and_fish_source_print_their_scripts(tmp_path: Path, shell: str, start: str) -> None:
    env = {**os.environ, "_WFS_COMPLETE": f"{shell}_source"}
    proc = subprocess.run([WFS], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith(start)


@pytest.mark.slow
def test_bash_completes_the_command_name(tmp_path: Path) -> None:
    assert bash_complete(tmp_path, "wfs ta") == "plain,task\n"
    assert bash_complete(tmp_path, "wfs s") == (
        "plain,schema\nplain,session\nplain,status\nplain,switch\n"
    )
    assert bash_complete(tmp_path, "wfs task st") == "plain,status\n"


@pytest.mark.slow
def test_sourced_script_fills_compreply_in_a_real_bash(tmp_path: Path) -> None:
    script = (
        'eval "$(_WFS_COMPLETE=bash_source wfs)"\n'
        "complete -p wfs\n"
        "COMP_WORDS=(wfs ta); COMP_CWORD=1; _wfs_completion wfs\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        "complete -o nosort -F _wfs_completion wfs\ntask\n",
        "",
    )


@pytest.mark.slow
def test_switch_completes_session_ids_full_or_short(planned: Path) -> None:
    assert bash_complete(planned, "wfs switch ") == "plain,WFS-alpha\nplain,WFS-beta\n"
    assert bash_complete(planned, "wfs switch wfs-a") == "plain,WFS-alpha\n"
    assert bash_complete(planned, "wfs switch al") == "plain,alpha\n"
    assert bash_complete(planned, "wfs switch x") == NOTHING
    assert bash_complete(planned, "wfs session resume b") == "plain,beta\n"
    assert bash_complete(planned, "wfs --session ") == "plain,WFS-alpha\nplain,WFS-beta\n"
    assert bash_complete(planned, "wfs plan --session a") == "plain,alpha\n"


@pytest.mark.slow
def test_zsh_shows_each_session_status_and_topic(planned: Path) -> None:
    assert complete(planned, "zsh", "wfs switch ", 2) == (
        "plain\nWFS-alpha\npaused: Alpha\nplain\nWFS-beta\nactive: Beta\n"
    )


@pytest.mark.slow
def test_task_commands_complete_task_ids_of_the_active_session(planned: Path) -> None:
    everything = "plain,IMPL-1\nplain,IMPL-1.1\nplain,IMPL-1.2\nplain,IMPL-2\n"
    assert bash_complete(planned, "wfs task show ") == everything
    assert bash_complete(planned, "wfs task show impl-1.") == "plain,IMPL-1.1\nplain,IMPL-1.2\n"
    assert bash_complete(planned, "wfs task status IMPL-2 c") == "plain,completed\n"
    assert bash_complete(planned, "wfs execute IMPL-2") == "plain,IMPL-2\n"
    assert bash_complete(planned, "wfs execute --resume IMPL-1.") == (
        "plain,IMPL-1.1\nplain,IMPL-1.2\n"
    )
    assert bash_complete(planned, "wfs task add --depends-on IMPL-") == everything
    assert bash_complete(planned, "wfs task update IMPL-2 --depends-on IMPL-1.1") == (
        "plain,IMPL-1.1\n"
    )
    # --session names another session: its tasks.
    assert bash_complete(planned, "wfs --session alpha task show ") == "plain,IMPL-1\n"


@pytest.mark.slow
def test_fish_shows_each_task_status_and_title(planned: Path) -> None:
    assert complete(planned, "fish", "wfs task show IMPL-1.", "IMPL-1.") == (
        "plain,IMPL-1.1\tpending: Design\nplain,IMPL-1.2\tpending: Build\n"
    )


@pytest.mark.slow
def test_completion_of_ids_never_fails(planned: Path) -> None:
    # Two active sessions and none named: no task ids, and no error in the shell.
    (planned / ".workflow/.active-WFS-alpha").touch()
    assert bash_complete(planned, "wfs task show ") == NOTHING
    assert bash_complete(planned, "wfs --session beta task show IMPL-2") == "plain,IMPL-2\n"
    # A malformed task file (the others are still offered, and its id) and a malformed
    # session file.
    (planned / ".workflow/WFS-beta/.task/IMPL-2.json").write_text("{")
    (planned / ".workflow/WFS-alpha/workflow-session.json").write_text("[")
    assert bash_complete(planned, "wfs --session beta task show ") == (
        "plain,IMPL-1\nplain,IMPL-1.1\nplain,IMPL-1.2\nplain,IMPL-2\n"
    )
    assert complete(planned, "zsh", "wfs switch ", 2) == (
        "plain\nWFS-alpha\nunreadable\nplain\nWFS-beta\nactive: Beta\n"
    )


@pytest.mark.slow
def test_completion_outside_any_project_offers_nothing(tmp_path: Path) -> None:
    assert bash_complete(tmp_path, "wfs switch ") == NOTHING
    assert bash_complete(tmp_path, "wfs task show ") == NOTHING
