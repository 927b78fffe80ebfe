"""Substitution is safe in every spot of a bash command (SPEC §3.4): arithmetic, `[[ ]]`,
`let`, here-documents, comments, `$(...)` and backticks inside double quotes. A value
either reaches the command as data, byte for byte, or, where bash would evaluate it as
code and it is not a whole number, the command is refused before it runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_injection import CANARY, HOSTILE

from wfs.flow.variables import UnsafeValue, substitute_shell

CODE = [
    f"a[$(touch {CANARY})]",
    f"x[`touch {CANARY}`]",
    f"1+a[$(touch {CANARY})]",
    f"arr[$(touch {CANARY})]-1",
]
VALUES = HOSTILE + CODE


def run(command: str, value: object, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    shell = substitute_shell(command, {"v": value})
    return subprocess.run(
        ["bash", "-c", shell.script],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", **shell.env},
        capture_output=True,
        timeout=30,
    )


# Spots where bash evaluates the text: only a whole number may be written there.
ARITHMETIC = {
    "$(( ))": ("printf '%s' $(( [v] + 0 )) > out", "$(( ))"),
    "(( ))": ("(( [v] > 3 )); printf '%s' $? > out", "(( ))"),
    "[[ -gt ]]": ("[[ [v] -gt 3 ]]; printf '%s' $? > out", "[[ -gt ]]"),
    "[[ -v ]]": ("[[ -v [v] ]]; printf '%s' $? > out", "[[ -v ]]"),
    "let": ("let x=[v]+1; printf '%s' $x > out", "let"),
    "subscript": ("arr=(a b c); printf '%s' ${arr[[v]]} > out", "${...}"),
    "bare subscript": ("arr[[v]]=z; printf '%s' ${arr[*]} > out", "an array subscript"),
    "in quotes": ('printf "%s" "$(( [v] * 2 ))" > out', "$(( ))"),
}


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("spot", sorted(ARITHMETIC))
def test_arithmetic_takes_whole_numbers_and_refuses_the_rest(
    spot: str, value: str, tmp_path: Path
) -> None:
    command, detail = ARITHMETIC[spot]
    with pytest.raises(UnsafeValue) as refused:
        run(command, value, tmp_path)
    assert refused.value.message == (
        f"[v] is used in {detail}, where bash evaluates text as an expression that can run "
        "commands, and its value is not a whole number; the command was refused"
    )
    assert not (tmp_path / CANARY).exists()


@pytest.mark.parametrize(
    ("spot", "expected"),
    [("$(( ))", "7"), ("(( ))", "0"), ("[[ -gt ]]", "0"), ("let", "8"), ("in quotes", "14")],
)
def test_whole_numbers_work_in_arithmetic(spot: str, expected: str, tmp_path: Path) -> None:
    assert run(ARITHMETIC[spot][0], 7, tmp_path).returncode == 0
    assert (tmp_path / "out").read_text() == expected


# Spots where the value is data: it must arrive byte for byte.
DATA = {
    "here-document": ("cat > out <<EOF\n[v]\nEOF", "{v}\n"),
    "here-document, tabs stripped": ("cat > out <<-EOF\n\t[v]\n\tEOF", "{v}\n"),
    "comment with a quote before": ("# remove the 12\" pipe\nprintf '%s' [v] > out", "{v}"),
    "$() inside double quotes": ('printf "%s" "$(printf \'%s\' [v])" > out', "{v_no_nl}"),
    "backticks inside double quotes": ('printf "%s" "`printf \'%s\' [v]`" > out', "{v_no_nl}"),
    "[[ == ]]": ("[[ [v] == [v] ]] && printf '%s' [v] > out", "{v}"),
    "nested $()": ("printf '%s' \"$(printf '%s' \"$(printf '%s' [v])\")\" > out", "{v_no_nl}"),
    "subshell": ("(cd . && printf '%s' [v] > out)", "{v}"),
    "ANSI-C quotes": ("printf '%s' $'<'[v]$'>' > out", "<{v}>"),
}


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("spot", sorted(DATA))
def test_values_are_data_in_every_other_spot(spot: str, value: str, tmp_path: Path) -> None:
    command, expected = DATA[spot]
    if "here-document" in spot and "\n" in value:
        pass  # a newline in a here-document is just another line of it
    result = run(command, value, tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / CANARY).exists()
    want = expected.replace("{v_no_nl}", value.rstrip("\n")).replace("{v}", value)
    assert (tmp_path / "out").read_bytes() == want.encode()


@pytest.mark.parametrize("value", VALUES)
def test_a_quoted_here_document_takes_the_text_itself(value: str, tmp_path: Path) -> None:
    result = run("cat > out <<'EOF'\n[v]\nEOF", value, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out").read_bytes() == f"{value}\n".encode()
    assert not (tmp_path / CANARY).exists()


def test_a_value_that_would_end_a_quoted_here_document_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeValue) as refused:
        run("cat > out <<'EOF'\n[v]\nEOF", f"x\nEOF\ntouch {CANARY}", tmp_path)
    assert refused.value.message == (
        "[v] is in a here-document ended by 'EOF', and its value holds that line, which "
        "would end the document early; the command was refused"
    )
    assert not (tmp_path / CANARY).exists()


def test_a_quote_in_a_comment_no_longer_unquotes_a_glob(tmp_path: Path) -> None:
    """The reported case: after `# remove the 12" pipe`, `rm -f [v]` with `*` deleted
    every file of the project root."""
    for name in ("keep.txt", "also.txt"):
        (tmp_path / name).write_text(name)
    result = run('# remove the 12" pipe\nrm -f [v]', "*", tmp_path)
    assert result.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["also.txt", "keep.txt"]


def test_a_token_in_a_comment_is_left_alone(tmp_path: Path) -> None:
    shell = substitute_shell("true # uses [v]\nprintf '%s' [v] > out", {"v": "$(x)"})
    assert shell.script == "true # uses [v]\nprintf '%s' \"${WFS_V0}\" > out"


def test_the_engine_refuses_an_arithmetic_spot_before_running_it(project: Path) -> None:
    import json

    from conftest import read_json, wfs

    steps = [
        {
            "step": 1,
            "title": "Count",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "n",
            "command": "bash(touch ran.flag; echo $(( [shared_context.n] + 1 )))",
        },
    ]
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Count",
            "context": {"shared_context": {"n": CODE[0]}},
            "flow_control": {"pre_analysis": [], "implementation_approach": steps},
        }
    ]
    wfs("init", "--no-git")
    assert wfs("plan", "Arith", "--from", "-", input=json.dumps(tasks)).code == 0
    run_ = wfs("execute")
    assert run_.code == 1
    assert "[shared_context.n] is used in $(( ))" in run_.out
    assert not (project / "ran.flag").exists()  # refused before it ran
    assert not (project / CANARY).exists()
    assert read_json(project / ".workflow/WFS-arith/.task/IMPL-1.json")["status"] == "blocked"
    dry = wfs("execute", "--dry-run", "--resume", "IMPL-1").out
    assert "! [shared_context.n] is used in $(( ))" in dry
