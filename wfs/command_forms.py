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

import functools
import re
import shutil
from typing import Any, NamedTuple

# `[name]`: a variable a step fills in (its canonical spelling).
TOKEN = re.compile(r"\[([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\]")
# Template placeholders another tool fills in: `{{name}}`, `${name}`, `{name}`.
PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\$\{[^{}]*\}|(?<![$\w{])\{[A-Za-z_][\w.-]*\}(?!\})")
BUILTIN = re.compile(r"(bash|Read|Glob|Grep|Search)\((.*)\)\s*", re.S)
# A line range after a path: `:10-20`, ` 第 10-20 行`, ` lines 10-20`.
LINES = r"(?:\s*:\s*|\s+第\s*|\s+(?:lines?|L)\s*)(\d+)\s*(?:-|–|~|to)\s*(\d+)\s*(?:行)?\s*$"
_PROGRAM = r"[A-Za-z0-9_][A-Za-z0-9_.+-]*"
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
    if re.fullmatch(_PROGRAM, first) and (
        shutil.which(first) or first in _KNOWN_CLIS or first.islower() and _looks_like_cli(text)
    ):
        return Command("cli", text)
    return Command("agent", text)


@functools.lru_cache(maxsize=4096)
def builtin(command: str) -> Command | None:
    """`bash(...)` or a built-in, with its argument (a `Read()` of prose is the agent's);
    None for anything else (a CLI command line or words), without looking at PATH.
    (Kept for the commands seen last: a run reads a task's steps several times.)"""
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


def unquoted_bash(
    step: dict[str, Any],
) -> tuple[dict[str, Any], list[tuple[tuple[str | int, ...], str, str]]]:
    """`step` with each `bash('...')` of its command or commands, the whole command in
    quotes, written as `bash(...)` of the command inside them (as `wfs migrate` writes
    it); and for each one, (its place in the step, what was written, the command)."""
    unquoted: list[tuple[tuple[str | int, ...], str, str]] = []
    new = step
    places: list[tuple[tuple[str | int, ...], Any]] = [(("command",), step.get("command"))]
    commands = step.get("commands")
    if isinstance(commands, list):
        places += [(("commands", j), c) for j, c in enumerate(commands)]
    for place, text in places:
        inner = _unquoted(text) if isinstance(text, str) else None
        if inner is None:
            continue
        if new is step:
            new = dict(step)
            if isinstance(commands, list):
                new["commands"] = list(commands)
        if place[0] == "command":
            new["command"] = f"bash({inner})"
        else:
            new["commands"][place[1]] = f"bash({inner})"
        unquoted.append((place, text, inner))
    return new, unquoted


@functools.lru_cache(maxsize=4096)
def _unquoted(text: str) -> str | None:
    """The command inside `bash('...')`, the whole command in quotes; None for anything
    else, or for a quoted string not read the same once written unquoted."""
    match = BUILTIN.fullmatch(text.strip())
    if match is None or match.group(1) != "bash":
        return None
    inner = quoted_command(match.group(2))
    if inner == match.group(2) or quoted_command(inner) != inner:
        return None
    return inner


def is_path_argument(argument: str) -> bool:
    """Whether Read()'s argument names a file: one word, or words around a path (a line
    range); a sentence (`each discovered role analysis file`) or a path in the home
    directory is for the agent to act on."""
    text = unquote(argument).strip()
    if TOKEN.search(text) or PLACEHOLDER.search(text):
        return True  # filled in when it runs; left unfilled, the read fails naming it
    if text.startswith("~"):
        return False
    path = re.sub(LINES, "", text).strip()
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
        found = NamedPath(re.sub(LINES, "", unquote(command.text)).strip(), False)
    elif command.kind == "glob":
        found = NamedPath(unquote(command.text), True)
    else:
        found = NamedPath(split_grep(command.text)[1], False)
    return found


# ---------------------------------------------------------------- checks


class CheckForm(NamedTuple):
    """What a check an author wrote is: a command wfs runs (`command`, as it runs), or a
    criterion for the agent to verify (`command` None, `why` saying what made it so)."""

    command: str | None
    why: str


class _Word(NamedTuple):
    text: str  # as the shell reads it: quotes removed
    raw: tuple[int, int]  # where it is in the line
    quoted: bool  # some part of it is quoted
    operator: bool  # | || && ; & ( ) < > >> 2> … rather than a word


_OPERATORS = ("&&", "||", ";;", ">>", "<<", "&>", ">&", "<&", "|", "&", ";", "(", ")", "<", ">")
_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "(", ")"})
_REDIRECTS = frozenset({">", ">>", "<", "&>", ">&", "<&", "<<"})
# Shell words that start a command: builtins and keywords (no program to find on PATH).
SHELL_WORDS = frozenset(
    "cd test [ [[ export source . set pushd popd echo printf true false exit return "
    "if then else elif fi for while until do done case esac ! time command type "
    "read eval exec unset shift wait trap ulimit umask alias".split()
)
# Words that, after a command's arguments, say what it should do: prose about the
# command, not arguments to it (`npm test passes`, `pytest exits 0`).
_OUTCOMES = frozenset(
    "passes succeeds succeed exits returns should must outputs prints shows equals "
    "exists works contains reports".split()
)
_COMPARISONS = frozenset({"=", ">=", "<=", "==", "=>", "->", "→", "≥", "≤", "!=", "=~"})


# Chinese, Japanese and Korean letters and punctuation: outside quotes, words of prose.
# Its table of some 40,000 characters takes 3 to 6 ms to build, which every command
# that reads a task paid, though only the words of a check are read: like the other
# patterns most commands never use, it is a string, compiled by `re` (and kept in its
# cache) when it is first used.
_CJK = r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]"


_PLAIN_WORD = r"[A-Za-z]+"
# `<pdf>`, `<file-path>`: a placeholder the author left for a person to fill in.
_ANGLED = r"(?<![<\w])<[A-Za-z_][\w-]*>(?![>\w])"
_WINDOWS_PATH = r"(?<=[\w.~:-])\\(?=[\w.-])"


def check_form(text: str) -> CheckForm:
    """Whether a check (a `verification`, `convergence.verification`, an entry of
    `test.commands` or of the acceptance criteria) is a command, read as bash would
    read it: every command of the line starts with a program (on PATH, a shell builtin,
    a known CLI or a path), and nothing in it is prose that bash would mangle — words in
    another script outside quotes (`返回`, `验证`), a comparison (`>= 12`, which bash
    would take for a redirect, writing a file named `=`), a redirect to a number, words
    that say what the command should do (`npm test passes`, `pytest exits 0`), or quotes
    and parentheses that do not close. A `#` comment is bash's: it is left out of the
    judgement. A path written with backslashes (`scripts\\check.py`, `.\\gradlew`) is
    run with slashes, as Windows means it."""
    line = text.strip()
    if not line:
        return CheckForm(None, "empty")
    placeholder = re.search(_ANGLED, line)
    if placeholder:
        return CheckForm(None, f"{placeholder.group()} is a placeholder to fill in")
    found = builtin(line)
    if found is not None and found.kind != "bash":
        return CheckForm(None, f"{found.kind}: for the agent")
    inner = found.text if found is not None else line
    words = _words(inner)
    if words is None:
        return CheckForm(None, "a quote that does not close, or words in parentheses")
    words = _without_comment(words, inner)
    if not words:
        return CheckForm(None, "a comment only")
    problem = _prose_in(words)
    if problem:
        return CheckForm(None, problem)
    command = _windows_paths(inner, words)
    # A builtin (`test`, `cd`) is bash's own, whatever PATH holds: it runs in bash.
    if command == line and classify(line).kind == "cli" and words[0].text not in SHELL_WORDS:
        return CheckForm(line, "a command")  # a command line of a program, run as written
    return CheckForm(line if command == inner and found else f"bash({command})", "a command")


def _words(line: str) -> list[_Word] | None:
    """The words and operators of a shell line, or None when a quote does not close."""
    words: list[_Word] = []
    i, n = 0, len(line)
    while i < n:
        char = line[i]
        if char.isspace():
            i += 1
            continue
        operator = next((op for op in _OPERATORS if line.startswith(op, i)), None)
        if operator is not None:
            words.append(_Word(operator, (i, i + len(operator)), False, True))
            i += len(operator)
            continue
        start, text, quoted = i, [], False
        while (
            i < n and not line[i].isspace() and not any(line.startswith(op, i) for op in _OPERATORS)
        ):
            char = line[i]
            if char == "$" and line.startswith("$(", i):  # a command substitution, whole
                end = _closing(line, i + 1)
                if end < 0:
                    return None
                text.append(line[i : end + 1])
                quoted = True  # what is inside is its own command line
                i = end + 1
            elif char == "`":
                end = line.find("`", i + 1)
                if end < 0:
                    return None
                text.append(line[i : end + 1])
                quoted = True
                i = end + 1
            elif char in "'\"":
                end = line.find(char, i + 1)
                while char == '"' and end > 0 and line[end - 1] == "\\":
                    end = line.find(char, end + 1)
                if end < 0:
                    return None
                text.append(line[i + 1 : end])
                quoted = True
                i = end + 1
            elif char == "\\" and i + 1 < n:
                text.append(line[i : i + 2])
                i += 2
            else:
                text.append(char)
                i += 1
        words.append(_Word("".join(text), (start, i), quoted, False))
    depth = 0
    for k, word in enumerate(words):
        if word.operator and word.text == "(":
            before = words[k - 1] if k else None
            if before is not None and not (before.operator and before.text in _SEPARATORS):
                return None  # `(` where bash takes no subshell: words in parentheses
            depth += 1
        elif word.operator and word.text == ")":
            depth -= 1
            if depth < 0:
                return None
    return words if depth == 0 else None


def _closing(line: str, start: int) -> int:
    """Where the parenthesis opened at `start` closes (quotes skipped), or -1."""
    depth, i = 0, start
    while i < len(line):
        char = line[i]
        if char in "'\"":
            end = line.find(char, i + 1)
            if end < 0:
                return -1
            i = end
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _without_comment(words: list[_Word], line: str) -> list[_Word]:
    """The words before a `#` comment (a word that starts with `#`, outside quotes)."""
    for k, word in enumerate(words):
        if not word.operator and line[word.raw[0]] == "#":
            return words[:k]
    return words


def _prose_in(words: list[_Word]) -> str:
    """Why the words are prose rather than a command, or "" when they are a command."""
    commands: list[list[_Word]] = [[]]
    for word in words:
        if word.operator and word.text in _SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    for k, word in enumerate(words):
        if word.operator:
            target = words[k + 1] if k + 1 < len(words) else None
            if word.text in _REDIRECTS and (target is None or target.operator):
                if k + 2 < len(words) or target is None or target.text not in _SEPARATORS:
                    return f"{word.text} with nothing to read or write"
            if word.text in _REDIRECTS and target is not None and not target.operator:
                number = target.text.isdigit() and word.text in (">", ">>", "<")
                if target.text.startswith("=") or number:
                    shown = _line_of(words, k, k + 2)
                    return f"{shown} is a comparison in words, not a redirect"
            continue
        if word.quoted:
            continue
        if re.search(_CJK, word.text) and not re.search(r"[/\\.]", word.text):
            return f"{word.text!r} is a word of prose"
        if word.text in _COMPARISONS and k and not _in_test(words, k):
            return f"{_line_of(words, k, k + 2)} is a comparison in words"
    for simple in commands:
        names = [w for w in simple if not w.operator]
        while names and "=" in names[0].text and not names[0].text.startswith("="):
            names = names[1:]  # NAME=value before the command
        if not names:
            continue
        program = names[0].text
        if not _is_program(program, names[1:]):
            return f"{program!r} is not a program"
        tail: list[str] = []
        for word in reversed(names[1:]):
            if word.quoted or not (re.fullmatch(_PLAIN_WORD, word.text) or word.text.isdigit()):
                break
            tail.append(word.text.lower())
        if _OUTCOMES & set(tail) or ("exit" in tail and ("code" in tail or "status" in tail)):
            return "the words after the command say what it should do"
    return ""


def _line_of(words: list[_Word], start: int, end: int) -> str:
    """Words `start` to `end` as written: `>=`, not `> =`."""
    shown = words[start].text
    for before, word in zip(words[start : end - 1], words[start + 1 : end], strict=False):
        shown += ("" if word.raw[0] == before.raw[1] else " ") + word.text
    return shown


def _in_test(words: list[_Word], k: int) -> bool:
    """Whether word `k` is inside `[ … ]`, `[[ … ]]`, `test …` or `(( … ))`."""
    before = [w.text for w in words[:k]]
    opened = max((i for i, w in enumerate(before) if w in ("[", "[[", "test", "((")), default=-1)
    closed = max((i for i, w in enumerate(before) if w in ("]", "]]", "))")), default=-1)
    return opened > closed


def _is_program(name: str, args: list[_Word]) -> bool:
    if name in SHELL_WORDS or name in _KNOWN_CLIS:
        return True
    if name.startswith(("./", "../", "/", ".\\", "~/")):
        return True
    if not re.fullmatch(_PROGRAM, name):
        return False
    if shutil.which(name):
        return True
    first = args[0] if args else None  # an unknown program: only when it reads as a command line
    return name.islower() and first is not None and (first.quoted or first.text.startswith("-"))


def _windows_paths(line: str, words: list[_Word]) -> str:
    """`line` with the backslashes of unquoted Windows paths written as slashes."""
    out, last = [], 0
    for word in words:
        if word.operator or word.quoted:
            continue
        start, end = word.raw
        raw = line[start:end]
        if "\\" in raw and " " not in raw:
            fixed = re.sub(_WINDOWS_PATH, "/", raw)
            if raw.startswith(".\\"):
                fixed = "./" + fixed[2:]
            out.append(line[last:start] + fixed)
            last = end
    return "".join(out) + line[last:]
