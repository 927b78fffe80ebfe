"""Injection safety (SPEC §3.4): substituted values reach commands as data, byte-exact."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import wfs

from wfs.flow.variables import substitute_shell

CANARY = "PWNED"

HOSTILE = [
    f"$(touch {CANARY})",
    f"`touch {CANARY}`",
    f"'; touch {CANARY}; '",
    f'"; touch {CANARY}; "',
    f"; touch {CANARY}",
    f"&& touch {CANARY}",
    f"| touch {CANARY}",
    f"line one\ntouch {CANARY}\n",
    f"> {CANARY}",
    "< /etc/passwd",
    "*",
    "?",
    "[a-z]*",
    "-rf",
    "--help",
    "$HOME",
    "${PATH}",
    "$((6*7))",
    "\\",
    "'",
    '"',
    "'\"'\"'",
    "a b  c",
    "\ttab\t",
    " leading and trailing ",
    "!!",
    "~",
    "{a,b}",
    "$'\\x41'",
    "#not a comment",
    "",
    "[shared_context.v]",
    "Ünïcödé ✓ 日本",
]

POSITIONS = {
    "unquoted": "bash(printf '%s' [shared_context.v] > {file})",
    "double": "bash(printf '%s' \"[shared_context.v]\" > {file})",
    "single": "bash(printf '%s' '[shared_context.v]' > {file})",
}


def test_corpus_is_big_enough() -> None:
    assert len(HOSTILE) >= 20
    assert len(set(HOSTILE)) == len(HOSTILE)


def run_bash(command: str, values: dict[str, object], cwd: Path) -> bytes:
    shell = substitute_shell(command, values)
    proc = subprocess.run(
        ["bash", "-c", shell.script],
        cwd=cwd,
        env={**os.environ, **shell.env},
        capture_output=True,
        check=True,
    )
    return proc.stdout


@pytest.mark.parametrize("value", HOSTILE)
def test_each_value_arrives_byte_exact_in_every_position(value: str, tmp_path: Path) -> None:
    values = {"v": value, "shared_context": {"v": value}}
    assert run_bash("printf '%s' [v]", values, tmp_path) == value.encode()
    assert run_bash("printf '%s' \"<[v]>\"", values, tmp_path) == f"<{value}>".encode()
    assert run_bash("printf '%s' '<[v]>'", values, tmp_path) == f"<{value}>".encode()
    assert not (tmp_path / CANARY).exists()


def test_lists_become_separate_arguments_unquoted_and_one_string_quoted(tmp_path: Path) -> None:
    values = {"paths": HOSTILE}
    out = run_bash("printf '<%s>' [paths]", values, tmp_path)
    assert out == "".join(f"<{v}>" for v in HOSTILE).encode()
    joined = run_bash("printf '<%s>' \"[paths]\"", values, tmp_path)
    assert joined == f"<{' '.join(HOSTILE)}>".encode()
    assert not (tmp_path / CANARY).exists()


@pytest.mark.slow
def test_engine_passes_every_hostile_value_as_data(project: Path) -> None:
    tasks = []
    for n, value in enumerate(HOSTILE, start=1):
        steps = [
            {
                "step": i,
                "title": position,
                "description": "write the value",
                "modification_points": [],
                "logic_flow": [],
                "depends_on": [],
                "output": f"o{i}",
                "command": template.format(file=f"out-{n}-{position}"),
            }
            for i, (position, template) in enumerate(POSITIONS.items(), start=1)
        ]
        tasks.append(
            {
                "id": f"IMPL-{n}",
                "title": f"Value {n}",
                "context": {"shared_context": {"v": value}},
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
        )
    wfs("init", "--no-git")
    assert wfs("plan", "Hostile", "--from", "-", input=json.dumps(tasks)).code == 0
    run = wfs("execute", "--all")
    assert run.code == 0, run.out + run.err
    for n, value in enumerate(HOSTILE, start=1):
        for position in POSITIONS:
            got = (project / f"out-{n}-{position}").read_bytes()
            assert got == value.encode(), (n, position, value)
    assert not (project / CANARY).exists()
    assert not list(project.glob(f"*{CANARY}*"))


@pytest.mark.slow
def test_step_outputs_with_hostile_content_stay_data(project: Path) -> None:
    (project / "evil.txt").write_text(f"$(touch {CANARY}); `touch {CANARY}`")
    steps = [
        {
            "step": 1,
            "title": "read",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "evil",
            "command": "Read(evil.txt)",
        },
        {
            "step": 2,
            "title": "use",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [1],
            "output": "echoed",
            "command": "bash(printf '%s' [evil] > copy.txt)",
        },
    ]
    tasks = [
        {
            "id": "IMPL-1",
            "title": "t",
            "flow_control": {"pre_analysis": [], "implementation_approach": steps},
        }
    ]
    wfs("init", "--no-git")
    wfs("plan", "Evil output", "--from", "-", input=json.dumps(tasks))
    assert wfs("execute").code == 0
    assert (project / "copy.txt").read_text() == f"$(touch {CANARY}); `touch {CANARY}`"
    assert not (project / CANARY).exists()
