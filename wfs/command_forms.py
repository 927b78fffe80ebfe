"""What a step's command string is, read as its author meant it (SPEC §3.5).

A command is `bash(...)`, a built-in (`Read(...)`, `Glob(...)`, `Grep(...)`, and
`Search(...)`, which is Grep), a CLI command line (`gemini "..."`, `npm test`), or words
for an agent. What real task files write is read as meant:

- `bash('npm test')`, the whole command in quotes, runs `npm test` (as `Read('a.md')`
  reads `a.md`), rather than a program named "npm test";
- `Read(each discovered role analysis file)`, a sentence rather than a path, and
  `Read(~/...)`, outside the project, are instructions for the agent;
- `Read(src/a.ts:10-20)` and `Read(src/a.ts 第 10-20 行)` read those lines;
- `Grep(pattern, path)`: the path is what follows the last comma, when that names a place.

The rules (what `validate`, readiness and `execute` decide) and the engine (what runs)
both read commands here, so that they never disagree about what a command names.
"""

from __future__ import annotations

import re
import shutil
from typing import NamedTuple

# `[name]`: a variable a step fills in (its canonical spelling).
TOKEN = re.compile(r"\[([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\]")
# Template placeholders another tool fills in: `{{name}}`, `${name}`, `{name}`.
PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\$\{[^{}]*\}|(?<![$\w{])\{[A-Za-z_][\w.-]*\}(?!\})")
BUILTIN = re.compile(r"(bash|Read|Glob|Grep|Search)\((.*)\)\s*", re.S)
# A line range after a path: `:10-20`, ` 第 10-20 行`, ` lines 10-20`.
LINES = re.compile(
    r"(?:\s*:\s*|\s+第\s*|\s+(?:lines?|L)\s*)(\d+)\s*(?:-|–|~|to)\s*(\d+)\s*(?:行)?\s*$"
)
_PROGRAM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
# A bare command whose program is missing fails the step (SPEC §3.5) when it looks like
# a command line; plain sentences are agent steps.
_KNOWN_CLIS = {"gemini", "qwen", "codex", "claude", "npm", "npx", "pytest", "python", "git"}
# What a backslash escapes inside double quotes, as bash reads them.
_DOUBLE_ESCAPES = frozenset('$`"\\\n')


class Command(NamedTuple):
    kind: str  # bash | read | glob | grep | cli | agent
    text: str  # the argument (for built-ins) or the whole command line


def classify(command: str) -> Command:
    """What kind of step a command string is."""
    text = command.strip()
    found = builtin(text)
    if found is not None:
        return found
    if not text or text.startswith("mcp__"):
        return Command("agent", text)
    first = text.split(None, 1)[0]
    if _PROGRAM.fullmatch(first) and (
        shutil.which(first) or first in _KNOWN_CLIS or first.islower() and _looks_like_cli(text)
    ):
        return Command("cli", text)
    return Command("agent", text)


def builtin(command: str) -> Command | None:
    """`bash(...)` or a built-in, with its argument (a `Read()` of prose is the agent's);
    None for anything else (a CLI command line or words), without looking at PATH."""
    text = command.strip()
    match = BUILTIN.fullmatch(text)
    if not match:
        return None
    kind = "grep" if match.group(1) == "Search" else match.group(1).lower()
    if kind == "read" and not is_path_argument(match.group(2)):
        return Command("agent", text)  # an instruction, not a file to read
    if kind == "bash":
        return Command(kind, quoted_command(match.group(2)))
    return Command(kind, match.group(2))


def quoted_command(argument: str) -> str:
    """The command of `bash(...)`: when the whole argument is one quoted string
    (`'npm test'`, `"git log -1"`), the command inside it, read as bash reads that
    string; otherwise the argument as it is."""
    text = argument.strip()
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return argument
    quote, inner = text[0], text[1:-1]
    out: list[str] = []
    i = 0
    while i < len(inner):
        char = inner[i]
        if char == "\\" and i + 1 < len(inner):
            following = inner[i + 1]
            # Inside double quotes bash unescapes a few characters; inside single quotes
            # nothing, but an author writing `\'` meant a quote.
            if following == quote or (quote == '"' and following in _DOUBLE_ESCAPES):
                out.append(following)
                i += 2
                continue
        elif char == quote:
            return argument  # quoted pieces side by side: not one quoted string
        out.append(char)
        i += 1
    return "".join(out)


def is_path_argument(argument: str) -> bool:
    """Whether Read()'s argument names a file: one word, or words around a path (a line
    range); a sentence (`each discovered role analysis file`) or a path in the home
    directory is for the agent to act on."""
    text = unquote(argument).strip()
    if TOKEN.search(text) or PLACEHOLDER.search(text):
        return True  # filled in when it runs; left unfilled, the read fails naming it
    if text.startswith("~"):
        return False
    path = LINES.sub("", text).strip()
    return " " not in path or bool(re.search(r"[/\\]|\.\w", path))


def _looks_like_cli(text: str) -> bool:
    rest = text.split(None, 1)[1] if " " in text else ""
    return bool(rest) and (rest.startswith("-") or rest[:1] in "\"'" or " -" in rest)


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def split_grep(argument: str) -> tuple[str, str]:
    """(pattern, path) of `Grep(pattern[, path])`. A quoted pattern ends at its quote;
    otherwise the path is what follows the last comma, when that names a place (or
    looks like a path), so `Grep(a{1,3}, src)` searches `src` for `a{1,3}`."""
    text = argument.strip()
    if text[:1] in "\"'" and text.count(text[0]) >= 2:
        end = text.index(text[0], 1)
        rest = text[end + 1 :].strip()
        if not rest or rest.startswith(","):
            return text[1:end], rest[1:].strip() or "."
    head, comma, tail = text.rpartition(",")
    candidate = unquote(tail.strip())
    if comma and candidate and _names_a_place(candidate):
        return head.strip(), candidate
    return text, "."


def _names_a_place(text: str) -> bool:
    """A path, not the end of a regular expression: no spaces, no regex syntax."""
    return not (" " in text or any(c in text for c in "()[]{}*+?|^$\\"))


class NamedPath(NamedTuple):
    """A path a built-in names literally: `text` as written (unquoted, without a line
    range), and whether it is a glob `pattern`."""

    text: str
    pattern: bool


def named_path(command: Command) -> NamedPath | None:
    """The path a built-in's literal argument names; None for other commands, and for
    an argument holding a `[variable]` (resolved when it runs). A placeholder
    (`{session}`) stays in it as written: `{session}/../..` leads out all the same."""
    if command.kind not in ("read", "glob", "grep") or TOKEN.search(command.text):
        return None
    if command.kind == "read":
        found = NamedPath(LINES.sub("", unquote(command.text)).strip(), False)
    elif command.kind == "glob":
        found = NamedPath(unquote(command.text), True)
    else:
        found = NamedPath(split_grep(command.text)[1], False)
    return found
