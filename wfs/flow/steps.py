"""Step executors: bash(), Read(), Glob(), Grep(), Search(), external CLI tools, agent steps.

Every executor returns a StepResult; none raises for a failing command. What a command
string is (wfs/command_forms.py) is read as its author meant it. Built-ins are confined
to the project root: a path that leads outside it (by `..`, an absolute path or a
symlink) is refused, and

- `Read(src/a.ts:10-20)` and `Read(src/a.ts 第 10-20 行)` read those lines;
- an absolute path written on another machine (`D:\\repo\\src\\x.ts`,
  `/home/someone/work/repo/src/x.ts`) is read where it is in this project
  (wfs.layout.project_path); one that is not in it is refused;
- `Search(pattern, path)` is `Grep(pattern, path)`; in both, the path is what follows
  the last comma when that names something in the project (a regex may hold commas).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from wfs import platform, store
from wfs.command_forms import LINES, PLACEHOLDER, named_path, split_grep, unquote
from wfs.command_forms import Command as Command  # re-exported: the engine's
from wfs.command_forms import classify as classify  # re-exported: the engine's
from wfs.errors import WfsError
from wfs.flow import signals
from wfs.flow.variables import substitute_prose, substitute_shell
from wfs.layout import confined as layout_confined
from wfs.layout import is_absolute_path, project_path

MAX_GREP_LINES = 1000
# What a command's run keeps in memory of each of its streams: a step that writes more
# has its stdout written whole to a file as it comes (`spill`), and its value is the
# last OUTPUT_KEEP bytes (wfs.flow.stepping.kept_output says so in the value).
OUTPUT_KEEP = 8 * 1024 * 1024


class StepResult(NamedTuple):
    exit_code: int
    output: str
    error: str = ""
    timed_out: bool = False
    cut: int = 0  # bytes of stdout before `output` that it leaves out
    whole: Path | None = None  # where stdout is kept whole, when `output` leaves some out


class StepWatch(platform.Watch, Protocol):
    """What sees a step's commands: their output as it comes, and that one started
    (told while the run's resident bash forks it: the runner's notes of a step's start
    cost no time of the step's own)."""

    def started(self) -> None: ...


class Spool:
    """A platform.Watch that passes everything on to `watch`, and keeps a command's whole
    stdout in the file `path` once it is over OUTPUT_KEEP bytes (until then, in memory):
    written as it comes, so that no more than that is ever held."""

    def __init__(self, watch: platform.Watch | None, path: Path | None) -> None:
        self.watch = watch
        self.path = path
        self.head: list[bytes] = []
        self.size = 0
        self.file: store.Appender | None = None

    def output(self, stream: int, chunk: bytes) -> None:
        if stream == 1 and self.path is not None:
            self.size += len(chunk)
            if self.file is not None:
                self.file.write(self.path, chunk)
            else:
                self.head.append(chunk)
                if self.size > OUTPUT_KEEP:
                    self.file = store.Appender()
                    self.file.open(self.path, os.O_TRUNC)
                    for piece in self.head:
                        self.file.write(self.path, piece)
                    self.head = []
        if self.watch is not None:
            self.watch.output(stream, chunk)

    def idle(self) -> None:
        if self.watch is not None:
            self.watch.idle()

    def close(self) -> Path | None:
        """The file that keeps the whole stdout, if it was needed."""
        self.head = []
        if self.file is None:
            return None
        self.file.close()
        return self.path


def run_shell(
    script: str,
    env: Mapping[str, str],
    root: Path,
    timeout: float | None,
    watch: StepWatch | None = None,
    spill: Path | None = None,
) -> StepResult:
    """Run a bash script in the project root; `watch` sees its output as it comes."""
    return _run(script, root, env, None, timeout, watch, spill)


def run_agent(
    agent_command: str,
    brief: str,
    root: Path,
    env: Mapping[str, str] | None = None,
    watch: StepWatch | None = None,
    spill: Path | None = None,
) -> StepResult:
    """Send the brief to the configured agent command on stdin; its stdout is the output."""
    return _run(agent_command, root, env or {}, brief.encode("utf-8"), None, watch, spill)


def _run(
    script: str,
    root: Path,
    env: Mapping[str, str],
    stdin: bytes | None,
    timeout: float | None,
    watch: StepWatch | None = None,
    spill: Path | None = None,
) -> StepResult:
    """Run `bash -c script` in a process group of its own (forked by the run's
    resident bash where there is one: wfs.platform.resident) and collect its output
    (which `watch`, if any, sees as it comes): the last OUTPUT_KEEP bytes of each
    stream, and stdout whole in the file `spill` when it is longer (`whole`). `watch`
    hears that it started once it is on its way.

    The process group lets a timeout or an interruption stop everything the step
    started: a timeout kills it (exit 124), an interruption stops it and goes on up.
    """
    bash = platform.find_bash()
    if bash is None:
        return StepResult(127, "", platform.BASH_MISSING)
    try:
        shell = platform.resident(bash) if stdin is None else None
        job = shell.start(script, root, env) if shell is not None else None
        group: platform.Job | platform.Group
        if job is not None:
            group = job
        else:
            group = platform.Group(
                [bash, "-c", script], root, platform.environment(env, bash), stdin is not None
            )
    except OSError as failure:  # E2BIG, EAGAIN (no processes left), ENOMEM...
        return StepResult(126, "", f"cannot start the command: {failure.strerror}")
    spool = Spool(watch, spill)
    try:
        if watch is not None:
            watch.started()  # while the resident bash forks the step
        if job is not None:
            job.began()  # before a signal may interrupt: its group is known to stop it
        with signals.armed():
            out, err, timed_out = group.communicate(stdin, timeout, spool, keep=OUTPUT_KEEP)
            code = group.wait()
    except BaseException:
        group.stop()
        raise
    finally:
        whole = spool.close()
    out, cut = _tail(out, group.cut[1])
    err, _ = _tail(err, group.cut[2])
    whole = whole if cut else None
    if timed_out:
        error = _text(err) + f"timed out after {timeout:g}s"
        return StepResult(124, _text(out), error, True, cut, whole)
    return StepResult(code, _text(out), _text(err), False, cut, whole)


def stop_orphans(token: str) -> list[int]:
    """Kill the process groups of steps that outlived their runner (found by
    `WFS_STEP=token` in their environment); returns the groups stopped."""
    return platform.stop_orphans(token)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _tail(raw: bytes, cut: int) -> tuple[bytes, int]:
    """The last part of a longer output (`cut` bytes came before `raw`) from its first
    whole line, when one starts near its beginning; and the bytes before that."""
    if not cut:
        return raw, 0
    start = raw.find(b"\n", 0, 64 * 1024) + 1
    return raw[start:], cut + start


def run_command(
    command: Command,
    values: Mapping[str, Any],
    root: Path,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
    watch: StepWatch | None = None,
    spill: Path | None = None,
) -> StepResult:
    """Run one non-agent command with `values` substituted; `watch` sees its output
    as it comes (a built-in's all at once, when it is done); `spill`: where a bash or
    CLI command's stdout is kept whole when it is longer than OUTPUT_KEEP."""
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
            return run_shell(
                shell.script, {**shell.env, **(env or {})}, root, timeout, watch, spill
            )
        import tempfile  # deferred: only when a value goes to a file

        with tempfile.TemporaryDirectory(prefix="wfs-values-") as folder:
            paths = {}
            for var, text in shell.files.items():
                path = os.path.join(folder, var)
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
                    handle.write(text)
                paths[f"{var}_FILE"] = path
            values_env = {**shell.env, **paths, **(env or {})}
            return run_shell(shell.script, values_env, root, timeout, watch, spill)
    argument = _this_session(substitute_prose(command.text, values), values, root)
    if watch is not None:
        watch.started()
    result = isolated(builtin, (command.kind, root, argument), timeout)
    if watch is not None:
        for stream, text in ((1, result.output), (2, result.error)):
            if text:
                watch.output(stream, text.encode("utf-8", "surrogateescape"))
    return result


def builtin(kind: str, root: Path, argument: str) -> StepResult:
    """Read(), Glob() or Grep() of `argument` in the project root."""
    try:
        if kind == "read":
            return StepResult(0, read_file(root, argument))
        if kind == "glob":
            return StepResult(0, "\n".join(glob_files(root, argument)))
        pattern, where = split_grep(argument)
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


def escapes_root(command: Command, root: Path) -> str | None:
    """Why a built-in's literal argument would leave the project root, else None
    (`--dry-run` notes it; the run refuses it). Arguments holding `[variables]` are
    checked when they run."""
    named = named_path(command)
    if named is None:
        return None
    try:
        if named.pattern:
            _check_pattern(root, command.text)
        else:
            confined(root, named.text)
    except WfsError as err:
        return err.message
    return None


def in_project(root: Path, text: str, pattern: bool = False) -> str:
    """`text` as a path in the project: an absolute path written on another machine is
    read where it is in this project (wfs.layout.project_path), else left as it is."""
    if is_absolute_path(text):
        return project_path(root, text, pattern) or text
    return text


def confined(root: Path, relative: str) -> Path:
    """`relative` (as a built-in's argument is written) resolved inside the project
    root, or an error naming why not (wfs.layout.confined)."""
    return layout_confined(root, in_project(root, unquote(relative)))


def read_target(argument: str) -> tuple[str, re.Match[str] | None]:
    """The path a `Read(argument)` reads, and the lines it names: `path:10-20` or
    `path 第 10-20 行` read lines 10 to 20 of `path`."""
    argument = unquote(argument)
    lines = re.search(LINES, argument)
    return (argument[: lines.start()] if lines else argument), lines


def read_file(root: Path, relative: str) -> str:
    """The file's text, or the lines the argument names (read_target)."""
    relative, lines = read_target(relative)
    unfilled = PLACEHOLDER.search(relative)
    if unfilled:
        raise WfsError(f"Read({relative}): the placeholder {unfilled.group()} is not filled in")
    path = confined(root, relative)
    found = store.open_regular(path, store.INPUT_LIMIT)
    if isinstance(found, str):
        said = {
            "file not found": "no such file",
            "is a directory, expected a file": "is a directory",
        }
        raise WfsError(f"Read({relative}): {said.get(found, found)}")
    text = found.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    if lines:
        first, last = int(lines.group(1)), int(lines.group(2))
        text = "".join(text.splitlines(keepends=True)[max(first - 1, 0) : last])
    return text


def glob_files(root: Path, pattern: str) -> list[str]:
    """Files matching `pattern` under the root, relative, sorted; none outside the root."""
    pattern = _check_pattern(root, pattern)
    real_root = root.resolve()
    found = []
    for path in root.glob(pattern):
        resolved = path.resolve()
        if resolved == real_root or real_root in resolved.parents:
            found.append(path.relative_to(root).as_posix())
    return sorted(found)


# Placeholders that name a session or its files: left unfilled in a glob, `[session]`
# would be a character class matching other sessions' folders.
_SESSION_PLACEHOLDER = (
    r"\[(?:session|session_id|session_dir|context_package_path)\]|\{\{[^{}]*\}\}|\$\{[^{}]*\}"
)


def _check_pattern(root: Path, pattern: str) -> str:
    pattern = in_project(root, unquote(pattern), pattern=True)
    if (
        not pattern
        or is_absolute_path(pattern)
        or Path(pattern).is_absolute()
        or ".." in Path(pattern).parts
    ):
        raise WfsError(f"Glob({pattern}): the pattern leads outside the project root")
    unfilled = re.search(_SESSION_PLACEHOLDER, pattern)
    if unfilled:
        raise WfsError(f"Glob({pattern}): the placeholder {unfilled.group()} is not filled in")
    return pattern


def grep_files(root: Path, pattern: str, where: str) -> list[str]:
    """`file:line:text` for each line matching the regex, under `where` in the root."""
    pattern = unquote(pattern)
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
        found = store.open_regular(resolved, store.INPUT_LIMIT)
        try:  # a FIFO, a device, a file too large or not text: not searched
            text = found.decode("utf-8") if isinstance(found, bytes) else None
        except UnicodeDecodeError:
            text = None
        if text is None:
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
