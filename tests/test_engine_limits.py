"""The engine at its limits: huge values and outputs, FIFOs, symlink loops, catastrophic
regular expressions. Each gives a clear result, never a hang, a traceback or a record
many times the size of the data. Runs are real processes with their own time limit, so
a hang fails the test instead of stalling the suite."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_fifo, read_json, wfs, wfs_process

SID = "WFS-limits"


def one_task(command: str, **extra: Any) -> None:
    step = {
        "step": 1,
        "title": "Go",
        "description": "d",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": "out",
        "command": command,
        **extra,
    }
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Limits",
            "flow_control": {"pre_analysis": [], "implementation_approach": [step]},
        }
    ]
    wfs("init", "--no-git")
    assert wfs("plan", "Limits", "--from", "-", input=json.dumps(tasks)).code == 0


def two_steps(first: str, second: str) -> None:
    steps = [
        {
            "step": 1,
            "title": "Load",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "big",
            "command": first,
        },
        {
            "step": 2,
            "title": "Use",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [1],
            "output": "used",
            "command": second,
        },
    ]
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Limits",
            "flow_control": {"pre_analysis": [], "implementation_approach": steps},
        }
    ]
    wfs("init", "--no-git")
    assert wfs("plan", "Limits", "--from", "-", input=json.dumps(tasks)).code == 0


@pytest.mark.slow
def test_a_value_larger_than_the_environment_allows_arrives_whole(project: Path) -> None:
    big = "".join(f"line {n} $(touch PWNED) `x` 'q' \"d\"\n" for n in range(9000)) + "\n\n"
    assert len(big.encode()) > 300_000
    (project / "big.txt").write_text(big)
    two_steps("Read(big.txt)", "bash(printf '%s' [big] | sha256sum | cut -c1-64)")
    run = wfs_process("execute", cwd=project, timeout=120)
    assert run.code == 0, run.out + run.err
    record = read_json(project / ".workflow" / SID / ".runs/IMPL-1.json")
    used = record["steps"]["implementation_approach/2"]["output"].strip()
    # A step's output drops its trailing newlines; the rest arrives byte for byte.
    assert used == hashlib.sha256(big.rstrip("\n").encode()).hexdigest()
    assert not (project / "PWNED").exists()


@pytest.mark.slow
def test_a_huge_output_keeps_the_run_record_small(project: Path) -> None:
    data = "x" * 1023 + "\n"
    (project / "huge.txt").write_text(data * 20 * 1024)  # 20 MiB
    one_task("Read(huge.txt)")
    run = wfs_process("execute", cwd=project, timeout=300)
    assert run.code == 0, run.out + run.err
    runs = project / ".workflow" / SID / ".runs"
    assert (runs / "IMPL-1.json").stat().st_size < 64 * 1024
    entry = read_json(runs / "IMPL-1.json")["steps"]["implementation_approach/1"]
    assert entry["output_bytes"] == 20 * 1024 * 1024 - 1  # without the last newline
    assert (project / entry["output_file"]).read_text() == (data * 20 * 1024)[:-1]
    total = sum(p.stat().st_size for p in runs.rglob("*") if p.is_file())
    assert total < 2 * 20 * 1024 * 1024  # the output once, its summary copy once at most


@pytest.mark.slow
@needs_fifo
def test_reading_a_fifo_fails_the_step_instead_of_hanging(project: Path) -> None:
    os.mkfifo(project / "pipe")
    one_task("Read(pipe)")
    run = wfs_process("execute", cwd=project, timeout=120)
    assert run.code == 1
    assert run.out.startswith(
        "IMPL-1: blocked: step implementation_approach/1 (Go) failed: exit code 1: "
        "Read(pipe): not a regular file (a FIFO, a device or a socket); refused\n"
    )


@pytest.mark.slow
def test_a_symlink_loop_is_a_clear_failure(project: Path) -> None:
    os.symlink("loop-b", project / "loop-a")
    os.symlink("loop-a", project / "loop-b")
    one_task("Read([shared_context.path])")
    data = read_json(project / ".workflow" / SID / ".task/IMPL-1.json")
    data["context"]["shared_context"] = {"path": "loop-a"}
    (project / ".workflow" / SID / ".task/IMPL-1.json").write_text(json.dumps(data))
    run = wfs_process("execute", cwd=project, timeout=120)
    assert run.code == 1, run.out + run.err
    assert "path 'loop-a' cannot be resolved (a symlink loop?)" in run.out
    assert "Traceback" not in run.err


@pytest.mark.slow
def test_a_catastrophic_grep_stops_at_the_step_timeout(project: Path) -> None:
    (project / "text.txt").write_text("a" * 40 + "!\n")
    one_task("Grep((a+)+$, text.txt)", timeout=2)
    run = wfs_process("execute", cwd=project, timeout=120)
    assert run.code == 1, run.out + run.err
    assert run.out.startswith(
        "IMPL-1: blocked: step implementation_approach/1 (Go) failed: timed out after 2s\n"
    )


@pytest.mark.slow
def test_a_catastrophic_regex_criterion_stops_at_the_step_timeout(project: Path) -> None:
    one_task(
        "bash(printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')",
        success_criteria="regex:(a+)+$",
        timeout=2,
    )
    run = wfs_process("execute", cwd=project, timeout=120)
    assert run.code == 1, run.out + run.err
    assert "success criteria 'regex:(a+)+$' not met" in run.out
