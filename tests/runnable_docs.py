"""Run the `console` blocks of a markdown document, in order, as one real bash session.

`$ CMD` is a command; it must exit 0, or N when it ends with `# exit N`. The lines
after it are its expected output (stdout and stderr): when shown they must match
entirely, where a line `...` stands for any lines and `...` in a line for any text.
A fenced block whose info string holds `file=NAME` (GitHub shows only the language)
is saved as NAME at that point.

A command using a wfs command that the CLI does not have is an error.
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

from wfs.cli import cli

BIN = Path(sys.executable).parent
MARKER = "@@runnable-doc@@"

FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<info>[^`]*)$")
EXIT = re.compile(r"\s#\s*exit (\d+)\s*$")


class Command(NamedTuple):
    line: int
    text: str
    code: int
    output: list[str] | None  # None: not shown, not checked


class File(NamedTuple):
    line: int
    name: str
    content: str


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
            steps.extend(_parse_console(body, start))
    return steps


def _parse_console(body: list[str], first_line: int) -> list[Command]:
    commands: list[Command] = []
    for offset, text in enumerate(body):
        line = first_line + offset + 1
        if text.startswith("$ "):
            code = EXIT.search(text)
            commands.append(Command(line, text[2:], int(code[1]) if code else 0, None))
        else:
            if not commands:
                raise ValueError(f"line {line}: output before any command")
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
        command: click.Command = cli
        ctx = click.Context(cli, info_name="wfs")
        args = iter(words[start + 1 :])
        for arg in args:
            if arg in ("&&", "||", "|", ";"):
                break
            if arg.startswith("-"):
                option = next((p for p in command.params if arg in p.opts), None)
                if isinstance(option, click.Option) and not option.is_flag:
                    next(args, None)  # its value
                continue
            if not isinstance(command, click.Group):
                break
            sub = command.get_command(ctx, arg)
            if sub is None:
                missing.add(arg)
                break
            command = sub
    return missing


def bash_script(doc: str, steps: list[Command | File]) -> tuple[str, list[Command]]:
    """The script running the steps, and the commands it runs (numbered in order)."""
    lines: list[str] = []
    run: list[Command] = []
    for step in steps:
        if isinstance(step, File):
            end = "RUNNABLE_DOC_FILE_END"
            assert end not in step.content
            lines.append(f"cat > {shlex.quote(step.name)} <<'{end}'\n{step.content}{end}")
            continue
        missing = missing_commands(step.text)
        assert not missing, f"{doc}:{step.line}: no such wfs command: {', '.join(missing)}"
        lines.append(step.text)
        lines.append(f"printf '\\n{MARKER} {len(run)} %d\\n' \"$?\"")
        run.append(step)
    return "\n".join(lines) + "\n", run


def run_doc(doc: Path, repo: Path, cwd: Path, tmp: Path, bin_dir: Path = BIN) -> list[str]:
    """Run the document's commands from `cwd`, with the `wfs` of `bin_dir` (by default
    this interpreter's) first on PATH; one message per command that failed."""
    name = doc.relative_to(repo).as_posix()
    script, commands = bash_script(name, parse(doc.read_text(encoding="utf-8")))
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "WFS_"))}
    env.pop("NO_COLOR", None)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        HOME=str(home),
        TMPDIR=str(tmp),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Doc Runner",
        GIT_AUTHOR_EMAIL="doc-runner@example.com",
        GIT_COMMITTER_NAME="Doc Runner",
        GIT_COMMITTER_EMAIL="doc-runner@example.com",
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile"],
        input=script,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    chunks = re.split(rf"\n{MARKER} (\d+) (\d+)\n", proc.stdout)
    if proc.returncode != 0 or chunks[-1] != "":
        return [f"{name}: the script did not run to its end:\n{proc.stdout}"]
    results = [
        (int(chunks[i + 1]), int(chunks[i + 2]), chunks[i]) for i in range(0, len(chunks) - 1, 3)
    ]
    assert [index for index, _, _ in results] == list(range(len(commands)))
    failures = []
    for (_, code, output), command in zip(results, commands, strict=True):
        where = f"{name}:{command.line}: $ {command.text}"
        if code != command.code:
            failures.append(f"{where}\nexit {code}, expected {command.code}\n{output}")
        elif command.output is not None and not output_matches(command.output, output):
            shown = "\n".join(command.output)
            failures.append(f"{where}\nexpected:\n{shown}\ngot:\n{output}")
    return failures
