"""`[name]` substitution (SPEC §3.3) and its injection-safe form for shell commands (§3.4).

In prose (descriptions, agent briefs) a known `[name]` is replaced by its text. In a
shell command the value never becomes shell text: each token is replaced by a quoted
expansion of a shell variable, and the values travel in the environment. Whatever a
value holds (`$(...)`, backticks, quotes, `;`, newlines) it reaches the command as data.

Real task files spell placeholders in other ways too: `{{name}}`, `${name}`, `{name}`
stand for `[name]` when the name is known (`{{context_package_path}}`,
`${session_dir}`), and `WFS-[session]`, `WFS-{session_id}`, `{session_id}` name the
session. An unknown name is left as written (never replaced by an empty string), so
that `--dry-run` and `validate` can name it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson

from wfs.errors import WfsError

_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
TOKEN = re.compile(rf"\[({_NAME})\]")
# `[name]` and the other spellings of a placeholder; the name is the one group that matched.
SPELLING = re.compile(
    rf"\[({_NAME})\]|\{{\{{\s*({_NAME})\s*\}}\}}|\$\{{({_NAME})\}}|\{{({_NAME})\}}"
)
SESSION_TOKEN = re.compile(
    r"(?:WFS-)?(?:\{session\}|\{session_id\}|\$\{session_id\}|\{\{\s*session_id\s*\}\})"
    r"|WFS-(?:\[session\]|\[session_id\]|\$\{session\}|\{\{\s*session\s*\}\})"
)

# Task fields exposed as variables, and their short aliases.
ALIASES = {"shared": "shared_context"}


class MissingInput(WfsError):
    """A command needs a step output that has no value yet."""

    exit_code = 1


def lookup(name: str, values: Mapping[str, Any]) -> tuple[bool, Any]:
    """(found, value) for `name`, following dots into objects (`shared_context.x`)."""
    head, *rest = name.split(".")
    head = ALIASES.get(head, head) if head not in values else head
    if head not in values:
        return False, None
    value = values[head]
    for part in rest:
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def as_text(value: Any, separator: str = ", ") -> str:
    """How a value reads in prose or inside quotes."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return separator.join(value)
    return orjson.dumps(value).decode()


def substitute_session(text: str, session_id: str) -> str:
    """The session's id for `WFS-{session}`, `{session}`, `WFS-[session]`,
    `{session_id}` and their like: each names the session (in paths mostly)."""
    if not session_id:
        return text
    return SESSION_TOKEN.sub(session_id, text)


def name_of(match: re.Match[str]) -> str:
    """The name a SPELLING match stands for."""
    return next(group for group in match.groups() if group is not None)


def known(match: re.Match[str], values: Mapping[str, Any]) -> bool:
    """A placeholder to replace: `[name]` of any known name; another spelling only when
    its name is known (`${HOME}` in a shell command stays the shell's)."""
    return lookup(name_of(match), values)[0]


def task_values(
    task: Mapping[str, Any], session_id: str | None, session_dir: str | None
) -> dict[str, Any]:
    """The variables a task's steps can use, from the task in the seed form: its context
    fields, id and title, its context package, and the session's id and folder."""
    context = task.get("context")
    context = context if isinstance(context, dict) else {}
    values: dict[str, Any] = {name: context[name] for name in TASK_VARIABLES if name in context}
    values.update(id=task.get("id"), title=task.get("title"), session_id=session_id)
    if session_id:
        values["session"] = session_id
    if session_dir:
        values["session_dir"] = session_dir
    package = task.get("context_package_path")
    if isinstance(package, str) and package.strip():
        values["context_package_path"] = substitute_session(package, session_id or "")
    return values


TASK_VARIABLES = (
    "focus_paths",
    "depends_on",
    "parent",
    "requirements",
    "acceptance",
    "inherited",
    "shared_context",
    "artifacts",
)


def substitute_prose(text: str, values: Mapping[str, Any]) -> str:
    """Replace every known placeholder; leave anything else (`[0-9]`, unknown names)
    alone."""

    def replace(match: re.Match[str]) -> str:
        found, value = lookup(name_of(match), values)
        return as_text(value) if found else match.group(0)

    return SPELLING.sub(replace, text)


def check_inputs(text: str, values: Mapping[str, Any], declared: set[str]) -> None:
    """Fail when `text` uses a declared step output that has no value yet."""
    for match in SPELLING.finditer(text):
        name = name_of(match)
        if name.split(".")[0] in declared and not lookup(name, values)[0]:
            raise MissingInput(f"Missing required input: {name}")


class ShellCommand(NamedTuple):
    """A bash script with `[name]` tokens replaced by variable expansions (after a
    prelude that builds list variables), and the environment that carries the values."""

    script: str
    env: dict[str, str]


class Token(NamedTuple):
    """A known `[name]` in a shell command, and the quoting it sits in."""

    name: str
    value: Any
    state: str  # plain | single | double

    @property
    def as_list(self) -> bool:
        """Unquoted lists become separate words."""
        return self.state == "plain" and isinstance(self.value, list)


def shell_segments(command: str, values: Mapping[str, Any]) -> list[str | Token]:
    """`command` cut into literal text and the known `[name]` tokens within it."""
    out: list[str | Token] = []
    literal: list[str] = []
    state = "plain"  # plain | single | double
    i = 0
    while i < len(command):
        ch = command[i]
        if state != "single" and ch == "\\" and i + 1 < len(command):
            literal.append(command[i : i + 2])
            i += 2
            continue
        if ch in "[{$":
            match = SPELLING.match(command, i)
            if match:
                found, value = lookup(name_of(match), values)
                if found:
                    out.append("".join(literal))
                    literal = []
                    out.append(Token(name_of(match), value, state))
                    i = match.end()
                    continue
        if state == "plain" and ch == "'":
            state = "single"
        elif state == "single" and ch == "'":
            state = "plain"
        elif state == "plain" and ch == '"':
            state = "double"
        elif state == "double" and ch == '"':
            state = "plain"
        literal.append(ch)
        i += 1
    out.append("".join(literal))
    return [part for part in out if part != ""]


def substitute_shell(command: str, values: Mapping[str, Any]) -> ShellCommand:
    """Make `command` safe to run with bash: values go through the environment.

    Unquoted, a list becomes separate words ("${v[@]}") and anything else one word;
    inside double quotes it is expanded as data; inside single quotes the quote is
    closed around a double-quoted expansion.
    """
    env: dict[str, str] = {}
    prelude: list[str] = []
    slots: dict[tuple[str, bool], str] = {}

    def slot(token: Token) -> str:
        key = (token.name, token.as_list)
        if key in slots:
            return slots[key]
        var = f"WFS_V{len(slots)}"
        slots[key] = var
        if token.as_list:
            items = [as_text(v) for v in token.value]
            for n, item in enumerate(items):
                env[f"{var}_{n}"] = _env_safe(token.name, item)
            words = " ".join(f'"${{{var}_{n}}}"' for n in range(len(items)))
            prelude.append(f"{var}=({words})")
        else:
            env[var] = _env_safe(token.name, as_text(token.value, " "))
        return var

    out: list[str] = []
    for part in shell_segments(command, values):
        if isinstance(part, str):
            out.append(part)
            continue
        var = slot(part)
        if part.as_list:
            out.append(f'"${{{var}[@]}}"')
        elif part.state == "single":
            out.append(f"'\"${{{var}}}\"'")
        elif part.state == "double":
            out.append(f"${{{var}}}")
        else:
            out.append(f'"${{{var}}}"')
    script = "".join(out)
    if prelude:
        script = "\n".join(prelude) + "\n" + script
    return ShellCommand(script, env)


def preview_shell(command: str, values: Mapping[str, Any]) -> str:
    """The command as bash will see it once substituted, with each value written out
    as a quoted literal (what `--dry-run` shows): the same words, the same data."""
    import shlex

    out: list[str] = []
    for part in shell_segments(command, values):
        if isinstance(part, str):
            out.append(part)
        elif part.as_list:
            out.append(" ".join(shlex.quote(as_text(v)) for v in part.value))
        elif part.state == "double":
            text = as_text(part.value, " ")
            out.append("".join("\\" + c if c in '"$`\\' else c for c in text))
        elif part.state == "single":
            out.append("'" + shlex.quote(as_text(part.value, " ")) + "'")
        else:
            out.append(shlex.quote(as_text(part.value, " ")))
    return "".join(out)


def _env_safe(name: str, text: str) -> str:
    if "\0" in text:
        raise WfsError(f"value of [{name}] contains a NUL byte and cannot be passed to a command")
    return text
