"""docs/walkthrough.md works: its console blocks run, in order, as one real bash session.

`$ CMD` is a command; it must exit 0, or N when it ends with `# exit N`. The lines
after it are its expected output (stdout and stderr): when shown they must match
entirely, where a line `...` stands for any lines and `...` in a line for any text.
A fenced block whose info string holds `file=NAME` is saved as NAME first.
Commands that use a wfs command this CLI does not have yet (from branches not merged
yet, listed in PENDING) are left out; any other unknown command fails the test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import click
import pytest
from conftest import REPO

from wfs.cli import cli

DOC = REPO / "docs" / "walkthrough.md"
BIN = Path(sys.executable).parent
PENDING = {"diff", "agents"}
MARKER = "@@walkthrough@@"


class Command(NamedTuple):
    line: int
    text: str
    code: int
    output: list[str] | None  # None: not shown, not checked


class File(NamedTuple):
    line: int
    name: str
    content: str


FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<info>[^`]*)$")
EXIT = re.compile(r"\s#\s*exit (\d+)\s*$")


def parse(markdown: str) -> list[Command | File]:
    """The console commands and the files of a markdown document, in order."""
    steps: list[Command | File] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        i += 1
        if not fence:
            continue
        indent, ticks, info = fence["indent"], fence["ticks"], fence["info"].split()
        start, body = i, []
        while lines[i].strip() != ticks:
            body.append(lines[i][len(indent) :])
            i += 1
        i += 1
        file_name = next((w[len("file=") :] for w in info[1:] if w.startswith("file=")), None)
        if file_name:
            steps.append(File(start, file_name, "".join(f"{b}\n" for b in body)))
        elif info[:1] == ["console"]:
            steps.extend(parse_console(body, start))
    return steps


def parse_console(body: list[str], first_line: int) -> list[Command]:
    commands: list[Command] = []
    for offset, text in enumerate(body):
        if text.startswith("$ "):
            exit_code = EXIT.search(text)
            commands.append(
                Command(
                    first_line + offset + 1, text[2:], int(exit_code[1]) if exit_code else 0, None
                )
            )
        else:
            assert commands, (
                f"docs/walkthrough.md:{first_line + offset + 1}: output before a command"
            )
            last = commands[-1]
            commands[-1] = last._replace(output=[*(last.output or []), text])
    return commands


def output_matches(expected: list[str], actual: str) -> bool:
    pattern = ""
    for line in expected:
        if line == "...":
            pattern += r"(?:.*\n)*?"
        else:
            pattern += ".*".join(re.escape(part) for part in line.split("...")) + r"\n"
    if actual and not actual.endswith("\n"):
        actual += "\n"
    return re.fullmatch(pattern, actual) is not None


def missing_commands(text: str) -> set[str]:
    """Names of the wfs commands used in `text` that the click tree does not have."""
    missing = set()
    words = shlex.split(text, comments=True)
    for start, word in enumerate(words):
        if word != "wfs":
            continue
        group: click.Command = cli
        ctx = click.Context(cli, info_name="wfs")
        args = iter(words[start + 1 :])
        for arg in args:
            if arg in ("&&", "||", "|", ";"):
                break
            if arg.startswith("-"):
                option = next((p for p in group.params if arg in p.opts), None)
                if isinstance(option, click.Option) and not option.is_flag:
                    next(args, None)  # its value
                continue
            if not isinstance(group, click.Group):
                break
            sub = group.get_command(ctx, arg)
            if sub is None:
                missing.add(arg)
                break
            group = sub
    return missing


STEPS = parse(DOC.read_text(encoding="utf-8"))


def test_walkthrough_is_parsed_into_commands_and_files() -> None:
    commands = [s for s in STEPS if isinstance(s, Command)]
    files = [s.name for s in STEPS if isinstance(s, File)]
    assert files == ["plan.json", "readme.txt", "reviewer.sh"]
    assert len(commands) >= 25
    texts = [c.text for c in commands]
    for expected in ("wfs init", 'wfs plan "Greeter" --from plan.json', "wfs doctor"):
        assert expected in texts
    assert [c.code for c in commands if c.code] == [3, 1]
    assert any(c.text.startswith("wfs execute --resume IMPL-2") for c in commands)


def test_output_matching_rules() -> None:
    assert output_matches(["a", "b"], "a\nb\n")
    assert not output_matches(["a", "b"], "a\nb\nc\n")
    assert not output_matches(["a"], "a\nb\n")
    assert output_matches(["...", "b", "..."], "a\nb\nc\nd\n")
    assert output_matches(["...", "b"], "b\n")
    assert output_matches(["Initialized .../x/.workflow"], "Initialized /tmp/p/x/.workflow\n")
    assert not output_matches(["done (...)"], "failed (0.1s)\n")
    assert output_matches(["a.b"], "a.b")
    assert not output_matches(["a.b"], "axb\n")


def test_unknown_commands_are_found_in_the_click_tree() -> None:
    assert missing_commands("wfs --session X task show IMPL-1 && wfs status") == set()
    assert missing_commands("wfs stauts") == {"stauts"}
    assert missing_commands("wfs task shw IMPL-1") == {"shw"}
    assert missing_commands("git add -A && wfs --root d nope x") == {"nope"}
    assert missing_commands("echo wfs-not-a-command") == set()


def bash_script(steps: list[Command | File]) -> tuple[str, list[Command]]:
    """The script running the steps, and the commands it runs (numbered in order)."""
    lines: list[str] = []
    run: list[Command] = []
    for step in steps:
        if isinstance(step, File):
            delimiter = "WALKTHROUGH_FILE_END"
            assert delimiter not in step.content
            lines.append(
                f"cat > {shlex.quote(step.name)} <<'{delimiter}'\n{step.content}{delimiter}"
            )
            continue
        missing = missing_commands(step.text)
        unexpected = missing - PENDING
        assert not unexpected, f"docs/walkthrough.md:{step.line}: no such wfs command: {unexpected}"
        if missing:
            continue
        lines.append(step.text)
        lines.append(f"printf '\\n{MARKER} {len(run)} %d\\n' \"$?\"")
        run.append(step)
    return "\n".join(lines) + "\n", run


def test_every_command_of_the_walkthrough_works(tmp_path: Path) -> None:
    script, commands = bash_script(STEPS)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "WFS_"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        HOME=str(home),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Walker",
        GIT_AUTHOR_EMAIL="walker@example.com",
        GIT_COMMITTER_NAME="Walker",
        GIT_COMMITTER_EMAIL="walker@example.com",
    )
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile"],
        input=script,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout
    chunks = re.split(rf"\n{MARKER} (\d+) (\d+)\n", proc.stdout)
    assert chunks[-1] == "", f"output after the last command: {chunks[-1]!r}"
    results = [
        (int(chunks[i + 1]), int(chunks[i + 2]), chunks[i]) for i in range(0, len(chunks) - 1, 3)
    ]
    assert [index for index, _, _ in results] == list(range(len(commands)))
    failures = []
    for (_, code, output), command in zip(results, commands, strict=True):
        where = f"docs/walkthrough.md:{command.line}: $ {command.text}"
        if code != command.code:
            failures.append(f"{where}\nexit {code}, expected {command.code}\n{output}")
        elif command.output is not None and not output_matches(command.output, output):
            shown = "\n".join(command.output)
            failures.append(f"{where}\nexpected:\n{shown}\ngot:\n{output}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("name", sorted(PENDING))
def test_pending_commands_are_used_in_the_walkthrough(name: str) -> None:
    # Once their branch is merged these lines run; until then they must still be there.
    assert any(isinstance(s, Command) and re.search(rf"\bwfs {name}\b", s.text) for s in STEPS)
