"""Step executors: bash(), Read(), Glob(), Grep(), Search(), external CLI tools, agent steps.

Every executor returns a StepResult; none raises for a failing command. Built-ins are
confined to the project root: a path that leads outside it (by `..`, an absolute path
or a symlink) is refused. What real task files write is read as it is meant:

- `Read(each discovered role analysis file)`, a sentence rather than a path, and
  `Read(~/...)`, outside the project, are instructions for the agent;
- `Read(src/a.ts:10-20)` and `Read(src/a.ts 第 10-20 行)` read those lines;
- an absolute path into the project's `.workflow/` (`D:\\repo\\.workflow\\...`, written on
  another machine) is read from this project's `.workflow/`;
- `Search(pattern, path)` is `Grep(pattern, path)`; in both, the path is what follows
  the last comma when that names something in the project (a regex may hold commas).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from wfs import platform
from wfs.errors import WfsError
from wfs.flow import signals
from wfs.flow.shell import TOKEN
from wfs.flow.variables import substitute_prose, substitute_shell

MAX_GREP_LINES = 1000
_BUILTIN = re.compile(r"(bash|Read|Glob|Grep|Search)\((.*)\)\s*", re.S)
# A line range after a path: `:10-20`, ` 第 10-20 行`, ` lines 10-20`.
_LINES = re.compile(
    r"(?:\s*:\s*|\s+第\s*|\s+(?:lines?|L)\s*)(\d+)\s*(?:-|–|~|to)\s*(\d+)\s*(?:行)?\s*$"
)
_PROGRAM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
# A bare command whose program is missing fails the step (SPEC §3.5) when it looks like
# a command line; plain sentences are agent steps.
_KNOWN_CLIS = {"gemini", "qwen", "codex", "claude", "npm", "npx", "pytest", "python", "git"}


class StepResult(NamedTuple):
    exit_code: int
    output: str
    error: str = ""
    timed_out: bool = False


class Command(NamedTuple):
    kind: str  # bash | read | glob | grep | cli | agent
    text: str  # the argument (for built-ins) or the whole command line


def classify(command: str) -> Command:
    """What kind of step a command string is."""
    text = command.strip()
    match = _BUILTIN.fullmatch(text)
    if match:
        kind = "grep" if match.group(1) == "Search" else match.group(1).lower()
        if kind == "read" and not _is_path_argument(match.group(2)):
            return Command("agent", text)  # an instruction, not a file to read
        return Command(kind, match.group(2))
    if not text or text.startswith("mcp__"):
        return Command("agent", text)
    first = text.split(None, 1)[0]
    if _PROGRAM.fullmatch(first) and (
        shutil.which(first) or first in _KNOWN_CLIS or first.islower() and _looks_like_cli(text)
    ):
        return Command("cli", text)
    return Command("agent", text)


def _is_path_argument(argument: str) -> bool:
    """Whether Read()'s argument names a file: one word, or words around a path (a line
    range); a sentence (`each discovered role analysis file`) or a path in the home
    directory is for the agent to act on."""
    text = _unquote(argument).strip()
    if TOKEN.search(text) or PLACEHOLDER.search(text):
        return True  # filled in when it runs; left unfilled, the read fails naming it
    if text.startswith("~"):
        return False
    path = _LINES.sub("", text).strip()
    return " " not in path or bool(re.search(r"[/\\]|\.\w", path))


PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\$\{[^{}]*\}|(?<![$\w{])\{[A-Za-z_][\w.-]*\}(?!\})")


def _looks_like_cli(text: str) -> bool:
    rest = text.split(None, 1)[1] if " " in text else ""
    return bool(rest) and (rest.startswith("-") or rest[:1] in "\"'" or " -" in rest)


def run_shell(script: str, env: Mapping[str, str], root: Path, timeout: float | None) -> StepResult:
    """Run a bash script in the project root."""
    return _run(script, root, env, None, timeout)


def run_agent(
    agent_command: str, brief: str, root: Path, env: Mapping[str, str] | None = None
) -> StepResult:
    """Send the brief to the configured agent command on stdin; its stdout is the output."""
    return _run(agent_command, root, env or {}, brief.encode("utf-8"), None)


def _run(
    script: str,
    root: Path,
    env: Mapping[str, str],
    stdin: bytes | None,
    timeout: float | None,
) -> StepResult:
    """Run `bash -c script` in a process group of its own and collect its output.

    The process group lets a timeout or an interruption stop everything the step
    started: a timeout kills it (exit 124), an interruption stops it and goes on up.
    """
    bash = platform.find_bash()
    if bash is None:
        return StepResult(127, "", platform.BASH_MISSING)
    try:
        group = platform.Group(
            [bash, "-c", script], root, platform.environment(env, bash), stdin is not None
        )
    except OSError as failure:  # E2BIG, EAGAIN (no processes left), ENOMEM...
        return StepResult(126, "", f"cannot start the command: {failure.strerror}")
    try:
        with signals.armed():
            out, err, timed_out = group.communicate(stdin, timeout)
            code = group.wait()
    except BaseException:
        group.stop()
        raise
    if timed_out:
        return StepResult(124, _text(out), _text(err) + f"timed out after {timeout:g}s", True)
    return StepResult(code, _text(out), _text(err))


def stop_orphans(token: str) -> list[int]:
    """Kill the process groups of steps that outlived their runner (found by
    `WFS_STEP=token` in their environment); returns the groups stopped."""
    return platform.stop_orphans(token)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def run_command(
    command: Command,
    values: Mapping[str, Any],
    root: Path,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
) -> StepResult:
    """Run one non-agent command with `values` substituted."""
    if command.kind in ("bash", "cli"):
        if command.kind == "cli":
            program = command.text.split(None, 1)[0]
            if shutil.which(program) is None:
                return StepResult(127, "", f"{program}: command not found on PATH")
        try:
            shell = substitute_shell(command.text, values)
        except WfsError as refused:  # a value bash would read as code, or a NUL byte
            return StepResult(2, "", refused.message)
        if not shell.files:
            return run_shell(shell.script, {**shell.env, **(env or {})}, root, timeout)
        import tempfile  # deferred: only when a value goes to a file

        with tempfile.TemporaryDirectory(prefix="wfs-values-") as folder:
            paths = {}
            for var, text in shell.files.items():
                path = os.path.join(folder, var)
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
                    handle.write(text)
                paths[f"{var}_FILE"] = path
            return run_shell(shell.script, {**shell.env, **paths, **(env or {})}, root, timeout)
    argument = _this_session(substitute_prose(command.text, values), values, root)
    return isolated(builtin, (command.kind, root, argument), timeout)


def builtin(kind: str, root: Path, argument: str) -> StepResult:
    """Read(), Glob() or Grep() of `argument` in the project root."""
    try:
        if kind == "read":
            return StepResult(0, read_file(root, argument))
        if kind == "glob":
            return StepResult(0, "\n".join(glob_files(root, argument)))
        pattern, where = split_grep(argument, root)
        found = grep_files(root, pattern, where)
        return StepResult(0, "\n".join(found))
    except WfsError as err:
        return StepResult(1, "", err.message)


def isolated(
    work: Callable[..., StepResult], args: tuple[Any, ...], timeout: float | None
) -> StepResult:
    """`work(*args)` (a function returning a StepResult, at a module's top level) in a
    child process, so that a slow disk, a huge tree or a catastrophic regular
    expression cannot hold the engine past the step's timeout, and Ctrl-C stops it too."""
    try:
        answer = platform.run_isolated(work, args, timeout, signals.armed)
    except TimeoutError:
        return StepResult(124, "", f"timed out after {timeout:g}s", True)
    except ChildProcessError:
        return StepResult(1, "", "the built-in stopped without an answer")
    if not isinstance(answer, StepResult):
        return StepResult(1, "", "the built-in stopped without an answer")
    return answer


def _this_session(argument: str, values: Mapping[str, Any], root: Path) -> str:
    """A path into this session's folder written for another of its places
    (`.workflow/active/WFS-x/...` once the session is archived, or after `wfs migrate
    --layout`), as the path in the folder the session is in now."""
    sid, folder = values.get("session_id"), values.get("session_dir")
    if not isinstance(sid, str) or not isinstance(folder, str) or not sid:
        return argument
    pattern = re.compile(
        r"\.workflow[/\\](?:(?:active|archives)[/\\])?" + re.escape(sid) + r"(?=[/\\]|$)"
    )

    def moved(match: re.Match[str]) -> str:
        return match.group() if (root / match.group()).is_dir() else folder

    return pattern.sub(moved, argument)


def split_grep(argument: str, root: Path | None) -> tuple[str, str]:
    """(pattern, path) of `Grep(pattern[, path])`. A quoted pattern ends at its quote;
    otherwise the path is what follows the last comma, when that names something in the
    project (or looks like a path), so `Grep(a{1,3}, src)` searches `src` for `a{1,3}`."""
    text = argument.strip()
    if text[:1] in "\"'" and text.count(text[0]) >= 2:
        end = text.index(text[0], 1)
        rest = text[end + 1 :].strip()
        if not rest or rest.startswith(","):
            return text[1:end], rest[1:].strip() or "."
    head, comma, tail = text.rpartition(",")
    candidate = _unquote(tail.strip())
    if comma and candidate and _names_a_place(candidate, root):
        return head.strip(), candidate
    return text, "."


def _names_a_place(text: str, root: Path | None) -> bool:
    """A path, not the end of a regular expression: no spaces, no regex syntax."""
    return not (" " in text or any(c in text for c in "()[]{}*+?|^$\\"))


def escapes_root(command: Command, root: Path) -> str | None:
    """Why a built-in's literal argument would leave the project root, else None.

    Checked before a task is claimed, so an unsafe task is refused without any change.
    Arguments holding `[variables]` are checked when they run.
    """
    if command.kind not in ("read", "glob", "grep") or TOKEN.search(command.text):
        return None
    try:
        if command.kind == "read":
            confined(root, _LINES.sub("", _unquote(command.text)))
        elif command.kind == "glob":
            _check_pattern(command.text)
        else:
            confined(root, split_grep(command.text, root)[1])
    except WfsError as err:
        return err.message
    return None


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _project_path(text: str) -> str:
    """An absolute path into a `.workflow/` folder (written on another machine, or in
    another checkout) as the same path in this project: `D:\\repo\\.workflow\\x` is
    `.workflow/x`. Any other path is returned as it is."""
    parts = re.split(r"[/\\]", text)
    if (text.startswith(("/", "\\")) or _DRIVE.match(text)) and ".workflow" in parts:
        return "/".join(parts[parts.index(".workflow") :])
    return text


_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def confined(root: Path, relative: str) -> Path:
    """`relative` resolved inside the project root, or an error naming why not."""
    relative = _project_path(_unquote(relative))
    if not relative or "\0" in relative:
        raise WfsError(f"invalid path {relative!r}")
    candidate = Path(relative)
    if candidate.is_absolute() or ".." in candidate.parts:
        raise WfsError(f"path {relative!r} leads outside the project root")
    real_root = root.resolve()
    try:
        resolved = (real_root / candidate).resolve()
    except (RuntimeError, OSError):  # a symlink loop, a path too long
        raise WfsError(f"path {relative!r} cannot be resolved (a symlink loop?)") from None
    if resolved != real_root and real_root not in resolved.parents:
        raise WfsError(f"path {relative!r} leads outside the project root (through a symlink)")
    return resolved


def read_file(root: Path, relative: str) -> str:
    """The file's text; `path:10-20` or `path 第 10-20 行` (lines 10 to 20): those lines."""
    relative = _unquote(relative)
    lines = _LINES.search(relative)
    if lines:
        relative = relative[: lines.start()]
    unfilled = PLACEHOLDER.search(relative)
    if unfilled:
        raise WfsError(f"Read({relative}): the placeholder {unfilled.group()} is not filled in")
    path = confined(root, relative)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            if path.is_dir():
                raise IsADirectoryError
            raise WfsError(
                f"Read({relative}): not a regular file (a FIFO, a socket or a device); "
                "wfs reads only files"
            )
        text = path.read_text(encoding="utf-8", errors="replace")
        if lines:
            first, last = int(lines.group(1)), int(lines.group(2))
            text = "".join(text.splitlines(keepends=True)[max(first - 1, 0) : last])
        return text
    except FileNotFoundError:
        raise WfsError(f"Read({relative}): no such file") from None
    except IsADirectoryError:
        raise WfsError(f"Read({relative}): is a directory") from None
    except OSError as err:
        raise WfsError(f"Read({relative}): {err.strerror}") from None


def glob_files(root: Path, pattern: str) -> list[str]:
    """Files matching `pattern` under the root, relative, sorted; none outside the root."""
    pattern = _check_pattern(pattern)
    real_root = root.resolve()
    found = []
    for path in root.glob(pattern):
        resolved = path.resolve()
        if resolved == real_root or real_root in resolved.parents:
            found.append(path.relative_to(root).as_posix())
    return sorted(found)


# Placeholders that name a session or its files: left unfilled in a glob, `[session]`
# would be a character class matching other sessions' folders.
_SESSION_PLACEHOLDER = re.compile(
    r"\[(?:session|session_id|session_dir|context_package_path)\]|\{\{[^{}]*\}\}|\$\{[^{}]*\}"
)


def _check_pattern(pattern: str) -> str:
    pattern = _unquote(pattern)
    if not pattern or Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise WfsError(f"Glob({pattern}): the pattern leads outside the project root")
    unfilled = _SESSION_PLACEHOLDER.search(pattern)
    if unfilled:
        raise WfsError(f"Glob({pattern}): the placeholder {unfilled.group()} is not filled in")
    return pattern


def grep_files(root: Path, pattern: str, where: str) -> list[str]:
    """`file:line:text` for each line matching the regex, under `where` in the root."""
    pattern = _unquote(pattern)
    try:
        regex = re.compile(pattern)
    except re.error as err:
        raise WfsError(f"Grep({pattern}): invalid regular expression: {err}") from None
    base = confined(root, where)
    real_root = root.resolve()
    files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
    lines: list[str] = []
    for path in files:
        if ".git" in path.relative_to(real_root).parts:
            continue
        resolved = path.resolve()
        if real_root not in resolved.parents:
            continue
        try:
            text = resolved.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        name = path.relative_to(real_root).as_posix()
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                lines.append(f"{name}:{number}:{line}")
                if len(lines) >= MAX_GREP_LINES:
                    return lines
    return lines


def meets(criteria: str | None, result: StepResult, timeout: float | None = None) -> bool:
    """success_criteria: `exit_code:N`, `contains:TEXT`, `regex:PAT`, `not_empty`.

    A `regex:` runs isolated, within `timeout`: a catastrophic pattern fails the step
    instead of hanging it."""
    if result.timed_out:
        return False
    if not criteria:
        return result.exit_code == 0
    kind, _, arg = criteria.partition(":")
    if kind == "exit_code":
        return arg.strip().lstrip("-").isdigit() and result.exit_code == int(arg)
    if kind == "contains":
        return result.exit_code == 0 and arg in result.output
    if kind == "regex":
        if result.exit_code != 0:
            return False
        found = isolated(_search, (arg, result.output), timeout)
        return found.exit_code == 0
    if kind == "not_empty":
        return result.exit_code == 0 and bool(result.output.strip())
    return False


def _search(pattern: str, text: str) -> StepResult:
    """Exit code 0 when `pattern` matches in `text` (a `regex:` success criterion)."""
    return StepResult(0 if re.search(pattern, text) else 1, "")
