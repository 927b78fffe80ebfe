"""The interface every editor target fills in (one module each, in targets/): what
wfs writes for that editor and how the editor spells things; and the formats the
targets share (markdown with frontmatter, plain text), with the YAML and TOML scalars
they are written with. A target with a format of its own defines it in its module."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from wfs import jsonio

# A format writes one command or agent for an editor: (its name, its header rendered
# for the target, its body rendered, the frontmatter fields its Form picks) -> the file.
Format = Callable[[str, dict[str, str], str, list[tuple[str, str]]], str]


class Form(NamedTuple):
    """How one kind of source (commands or agents) is written for an editor."""

    path: str  # relative to the project root; {name} is the command or agent name
    format: Format  # markdown, plain, or a target's own (gemini, codex)
    # Frontmatter (or TOML) keys, in order: (key, value). "@key" takes the source
    # header's value; anything else is a literal, with {name} filled in. Missing
    # "@key" values are left out.
    fields: tuple[tuple[str, str], ...] = ()


class Extra(NamedTuple):
    """A file an editor needs besides commands and agents, rendered from agents/files/."""

    path: str  # relative to the project root, or to the home directory for home files
    template: str  # file name in agents/files/


class Setting(NamedTuple):
    """An entry of wfs's in a JSON file the user (or the editor) also writes.

    The entry goes under `keys` (objects, created when missing): into the array found
    there (a SessionStart hook group, wfs's being the one running `wfs prime`; or a
    string, such as a permission rule, wfs's being that very string) or, with `name`,
    under that key of the object found there (an MCP server). The entries of one file
    are planned together."""

    path: str  # relative to the project root
    keys: tuple[str, ...]
    name: str  # "" for an array
    template: str  # file name in agents/files/: the entry, as JSON
    # "mcp": the MCP server, installed as McpMode says; MCP_TOOLS: an entry installed
    # only with the MCP server (a permission for its tools); RETIRED: an entry an
    # earlier wfs installed, which an install takes out (the template is not read);
    # SHARED: an entry the file needs, which may be the user's too: added when missing,
    # never taken out (the file goes only when it is exactly the one wfs creates)
    option: str = ""


# Whether to install the MCP server entry (Setting.option "mcp"), from --mcp/--no-mcp:
# "on" and "off" as asked; "add": also when it is missing, but a differing entry is the
# user's and left alone; "keep": only when it is there and wfs's own.
McpMode = str
MCP_MODES = ("on", "off", "add", "keep")

RETIRED = "retired"
SHARED = "shared"
MCP_TOOLS = "mcp-tools"


class Target(NamedTuple):
    """Everything wfs writes for one editor, and how that editor spells things."""

    name: str
    editor: str
    commands: Form
    agents: Form
    arguments: str  # the editor's placeholder for the command's arguments, or a stand-in
    substitutes: bool  # whether the editor replaces `arguments` by what the user typed
    slash: str  # how a command is invoked: slash + "execute"
    delegate: str  # how /execute hands a step to an agent (see agents/commands/execute.md)
    extras: tuple[Extra, ...] = ()  # more project files
    blocks: tuple[Extra, ...] = ()  # managed blocks in files the user also writes
    settings: tuple[Setting, ...] = ()  # entries in JSON files the user also writes
    shell_policy: tuple[Extra, ...] = ()  # user-level files, only with allow_shell
    agent_prefix: str = ""  # how the editor names an agent of this install
    agents_shown: str = ""  # where the model finds an agent file, when not agents.path
    agent_copies: tuple[Form, ...] = ()  # more places the agent definitions go
    # How an answer or a plan reaches `wfs` (see agents/commands/execute.md): "stdin", a
    # quoted here-document; "file", a file the agent writes in the project, for an
    # editor whose permission system refuses here-documents.
    answers: str = "stdin"
    # What the user must set up that no project file of the program can hold: the
    # install prints it.
    setup: str = ""


MARKDOWN_AGENT = (("name", "@name"), ("description", "@description"))
# Where Claude Code, Gemini CLI and Codex CLI read SessionStart hooks: an array of
# matcher groups, each {"matcher" (optional), "hooks": [{"type": "command", ...}]}.
SESSION_START = ("hooks", "SessionStart")


def yaml_scalar(value: str) -> str:
    """`value` as a YAML scalar: plain when that reads back unchanged, else quoted.

    Plain is preferred because some editors read frontmatter with a line parser that
    only strips quotes and knows no escapes."""
    plain = (
        re.fullmatch(r"[A-Za-z(/][^\n]*", value) is not None
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and value.lower() not in ("true", "false", "yes", "no", "on", "off", "null")
    )
    return value if plain else jsonio.string(value)


def frontmatter(fields: list[tuple[str, str]]) -> str:
    """The YAML header: numbers and the booleans true and false bare, text as text."""
    lines = [
        f"{key}: {value if value.isdigit() or value in ('true', 'false') else yaml_scalar(value)}"
        for key, value in fields
    ]
    return "---\n" + "\n".join(lines) + "\n---\n"


def toml_string(text: str) -> str:
    """A TOML string holding `text` exactly: a multi-line literal when possible."""
    # Literal strings have no escapes: they cannot hold ''' or control characters.
    if "'''" not in text and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
        # A newline right after the opening quotes is not part of the value.
        return "'''\n" + text + "'''"
    return jsonio.string(text)


def markdown(name: str, header: dict[str, str], body: str, fields: list[tuple[str, str]]) -> str:
    """Markdown with a YAML frontmatter of the form's fields."""
    return frontmatter(fields) + "\n" + body


def plain(name: str, header: dict[str, str], body: str, fields: list[tuple[str, str]]) -> str:
    """The body alone."""
    return body
