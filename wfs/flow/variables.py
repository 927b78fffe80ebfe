"""`[name]` substitution (SPEC §3.3) and its injection-safe form for shell commands (§3.4).

In prose (descriptions, agent briefs) a known `[name]` is replaced by its text. In a
shell command the value never becomes shell text: each token is replaced by a quoted
expansion of a shell variable, and the values travel in the environment. Whatever a
value holds (`$(...)`, backticks, quotes, `;`, newlines) it reaches the command as data.

Real task files spell placeholders in other ways too: `{{name}}` stands for `[name]`
when the name is known (`{{context_package_path}}`), `${session_dir}` and the like for
what wfs knows of the session (`${id}` in a description is code, and `${HOME}` in a
command stays the shell's), and they are read as `[name]` before anything else;
`WFS-[session]`, `WFS-{session_id}`, `{session_id}` name the session. An unknown name is
left as written, never replaced by an empty string, so that `--dry-run` and `validate`
can name it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.errors import WfsError
from wfs.flow.shell import TOKEN as TOKEN  # re-exported: `[name]`, the canonical spelling
from wfs.flow.shell import Slot, scan
from wfs.formats import TASK_VARIABLES

_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
# What wfs itself knows about the session and the task's files: `${name}` means these
# only (`${id}` in a description is code, a JavaScript template, not a placeholder).
SESSION_NAMES = ("session", "session_id", "session_dir", "context_package_path")
# `[name]` and the other spellings of a placeholder; the name is the one group that matched.
SPELLING = re.compile(
    rf"\[({_NAME})\]|\{{\{{\s*({_NAME})\s*\}}\}}|\$\{{({'|'.join(SESSION_NAMES)})\}}"
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
    return jsonio.compact(value).decode()


def whole_number(value: Any) -> str | None:
    """The value as a whole number bash can read in arithmetic, else None."""
    if isinstance(value, bool):
        return None
    text = as_text(value, " ").strip()
    return text if re.fullmatch(r"[+-]?[0-9]+", text) else None


def substitute_session(text: str, session_id: str) -> str:
    """The session's id for `WFS-{session}`, `{session}`, `WFS-[session]`,
    `{session_id}` and their like: each names the session (in paths mostly)."""
    if not session_id:
        return text
    return SESSION_TOKEN.sub(session_id, text)


def name_of(match: re.Match[str]) -> str:
    """The name a SPELLING match stands for."""
    return next(group for group in match.groups() if group is not None)


def known_spelling(placeholder: str, values: Mapping[str, Any]) -> bool:
    """Whether `{{name}}` or `${name}` names a known value."""
    match = SPELLING.fullmatch(placeholder)
    return match is not None and lookup(name_of(match), values)[0]


def normalize(text: str, values: Mapping[str, Any]) -> str:
    """Every other spelling of a known placeholder (`{{name}}`, `${session_dir}`) written
    as `[name]`, which the rest of this module reads; an unknown one is left as it is."""

    def spell(match: re.Match[str]) -> str:
        name = name_of(match)
        return f"[{name}]" if lookup(name, values)[0] else match.group(0)

    return SPELLING.sub(spell, text) if ("{" in text) else text


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
    prelude that builds list variables), and the environment that carries the values.

    A large value goes through a file instead (`files`: variable -> text): the kernel
    refuses an environment string over 128 KiB (E2BIG). The prelude reads the file
    named by `<variable>_FILE` into the variable, trailing newlines included.
    """

    script: str
    env: dict[str, str]
    files: dict[str, str] = {}


ENV_VALUE_LIMIT = 64 * 1024  # larger values, and all values past ENV_TOTAL_LIMIT, use files
ENV_TOTAL_LIMIT = 512 * 1024


class UnsafeValue(WfsError):
    """A value in a spot where bash would read it as code: the command is refused."""


def _refusal(slot: Slot) -> str | None:
    """Why `slot` cannot be written safely, or None."""
    if slot.context == "arithmetic" and whole_number(slot.value) is None:
        return (
            f"[{slot.name}] is used in {slot.detail or 'arithmetic'}, where bash evaluates "
            "text as an expression that can run commands, and its value is not a whole "
            "number; the command was refused"
        )
    if slot.context == "literal":
        text = as_text(slot.value, " ")
        if slot.delimiter in text.split("\n"):
            return (
                f"[{slot.name}] is in a here-document ended by {slot.delimiter!r}, and its "
                "value holds that line, which would end the document early; the command "
                "was refused"
            )
    return None


def substitute_shell(command: str, values: Mapping[str, Any]) -> ShellCommand:
    """Make `command` safe to run with bash: values go through the environment.

    Unquoted, a list becomes separate words ("${v[@]}") and anything else one word;
    inside double quotes or an expanding here-document it is expanded as data; inside
    single quotes the quote is closed around a double-quoted expansion. In arithmetic
    only a whole number is written; a value bash would evaluate as code is refused
    (UnsafeValue), see wfs/flow/shell.py.
    """
    env: dict[str, str] = {}
    files: dict[str, str] = {}
    prelude: list[str] = []
    slots: dict[tuple[str, bool], str] = {}
    total = 0

    def carry(var: str, name: str, text: str) -> None:
        """`var` holds `text` in the script: through the environment, or a file."""
        nonlocal total
        text = _env_safe(name, text)
        size = len(text.encode("utf-8", "surrogateescape"))
        if size > ENV_VALUE_LIMIT or total + size > ENV_TOTAL_LIMIT:
            files[var] = text
            prelude.append(f'IFS= read -r -d "" {var} < "${{{var}_FILE}}" || true')
        else:
            env[var] = text
            total += size

    def slot_var(name: str, value: Any, as_list: bool) -> str:
        key = (name, as_list)
        if key in slots:
            return slots[key]
        var = f"WFS_V{len(slots)}"
        slots[key] = var
        if as_list:
            items = [as_text(v) for v in value]
            for n, item in enumerate(items):
                carry(f"{var}_{n}", name, item)
            words = " ".join(f'"${{{var}_{n}}}"' for n in range(len(items)))
            prelude.append(f"{var}=({words})")
        else:
            carry(var, name, as_text(value, " "))
        return var

    out: list[str] = []
    for part in shell_segments(command, values):
        if isinstance(part, str):
            out.append(part)
            continue
        why = _refusal(part)
        if why:
            raise UnsafeValue(why)
        if part.context == "comment":
            out.append(f"[{part.name}]")
        elif part.context == "arithmetic":
            out.append(str(whole_number(part.value)))
        elif part.context == "literal":
            out.append(as_text(part.value, " "))
        elif part.context == "word" and isinstance(part.value, list):
            out.append(f'"${{{slot_var(part.name, part.value, True)}[@]}}"')
        else:
            var = slot_var(part.name, part.value, False)
            out.append(
                {
                    "word": f'"${{{var}}}"',
                    "double": f"${{{var}}}",
                    "single": f"'\"${{{var}}}\"'",
                    "ansi": f"'\"${{{var}}}\"$'",
                }[part.context]
            )
    script = "".join(out)
    if prelude:
        script = "\n".join(prelude) + "\n" + script
    return ShellCommand(script, env, files)


def shell_segments(command: str, values: Mapping[str, Any]) -> list[str | Slot]:
    """`command` cut into literal text and the known `[name]` tokens within it (other
    spellings of a known name read as `[name]`)."""
    return scan(normalize(command, values), lambda name: lookup(name, values))


def preview_shell(command: str, values: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The command as bash will see it once substituted, with each value written out
    as a quoted literal (what `--dry-run` shows): the same words, the same data. Also
    the reasons the real run will refuse it, if any."""
    out: list[str] = []
    problems: list[str] = []
    for part in shell_segments(command, values):
        if isinstance(part, str):
            out.append(part)
            continue
        why = _refusal(part)
        if why:
            problems.append(why)
            out.append(f"[{part.name}]")
        elif part.context == "comment":
            out.append(f"[{part.name}]")
        elif part.context == "arithmetic":
            out.append(str(whole_number(part.value)))
        elif part.context == "literal":
            out.append(as_text(part.value, " "))
        elif part.context == "word" and isinstance(part.value, list):
            out.append(" ".join(shlex.quote(as_text(v)) for v in part.value))
        elif part.context == "double":
            text = as_text(part.value, " ")
            out.append("".join("\\" + c if c in '"$`\\' else c for c in text))
        elif part.context in ("single", "ansi"):
            reopen = "$'" if part.context == "ansi" else "'"
            out.append("'" + shlex.quote(as_text(part.value, " ")) + reopen)
        else:
            out.append(shlex.quote(as_text(part.value, " ")))
    return "".join(out), problems


def _env_safe(name: str, text: str) -> str:
    if "\0" in text:
        raise WfsError(f"value of [{name}] contains a NUL byte and cannot be passed to a command")
    return text
