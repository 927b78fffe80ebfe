"""The engine at its limits: huge values and outputs, FIFOs, symlink loops, catastrophic
regular expressions. Each gives a clear result, never a hang, a traceback or a record
many times the size of the data. Runs are real processes with their own time limit, so
a hang fails the test instead of stalling the suite."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
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


# The peak memory of a wfs run as a subprocess: this wrapper runs it and prints the
# largest resident set of its children (Linux: KiB; macOS: bytes), then its exit code.
PEAK = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak * (1 if sys.platform == "darwin" else 1024), code)
"""
LOUD = 256 * 1024 * 1024  # bytes a step prints


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="resource.getrusage is POSIX only")
def test_a_step_printing_256_mib_stays_in_bounded_memory_and_keeps_it_whole(
    project: Path,
) -> None:
    two_steps(
        # 1 KiB lines, 256 MiB in all.
        f"bash(yes \"$(printf 'x%.0s' {{1..1023}})\" | head -c {LOUD})",
        "bash(printf '%s' \"[big]\" | head -n 1; printf '%s' \"[big]\" | wc -c)",
    )
    peak = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "wfs", "execute"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    rss, code = (int(word) for word in peak.stdout.split())
    assert code == 0, peak.stderr
    assert rss < 256 * 1024 * 1024  # the output whole in memory peaked at 814 MiB
    runs = project / ".workflow" / SID / ".runs"
    whole = runs / "IMPL-1" / "implementation_approach-1.1.whole.txt"
    assert whole.stat().st_size == LOUD  # kept whole, beside the run record
    with whole.open("rb") as kept:
        assert kept.read(1024) == b"x" * 1023 + b"\n"
        kept.seek(-1024, os.SEEK_END)
        assert kept.read() == b"x" * 1023 + b"\n"
    # The value is its last 8 MiB from a whole line on, after a line naming the file.
    kept_bytes = 8 * 1024 * 1024 - 1024  # the first line of the 8 MiB was cut short
    note = (
        f"[wfs: the first {LOUD - kept_bytes} bytes of this output are left out here; "
        f"the whole output is in {whole.relative_to(project).as_posix()}]"
    )
    record = read_json(runs / "IMPL-1.json")["steps"]
    used = record["implementation_approach/2"]["output"].splitlines()
    assert used == [note, str(len(note) + 1 + kept_bytes - 1)]  # its last newline dropped
    # wfs log shows the first 4 Mi characters of it, then where the rest is.
    shown = wfs_process("log", "IMPL-1", cwd=project, timeout=120)
    assert shown.code == 0
    lines = shown.out.splitlines()
    assert lines[:3] == ["IMPL-1 · Limits: completed", "  ▶ Load …", "    " + "x" * 1023]
    assert lines.count("    " + "x" * 1023) == 4 * 1024
    assert (
        "    … (the log keeps no more of this output; it is kept whole beside the run record)"
        in lines
    )
