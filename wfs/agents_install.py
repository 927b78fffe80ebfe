"""`wfs agents install`: the editor commands, skills and agent definitions of `agents/`.

Each command and each agent has one source file (`agents/commands/*.md`,
`agents/definitions/*.md`): a `key: value` header between `---` lines and a Jinja body.
Rendering gives every editor the format it loads today (markdown with frontmatter,
Gemini's TOML commands, Codex skills and TOML agents, …) from that single source, plus
the few files an editor needs besides (Codex rules, a managed block in AGENTS.md, the
opt-in Gemini shell policy). Rendering is a pure function of the shipped files and the
target, so an install can be compared byte for byte with what is already on disk: that
is what makes `--check` exact, a second install a no-op, and `--remove` safe (it only
deletes what is byte for byte wfs's own, unless `--force`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from wfs import __version__, jsonedit, jsonio, platform, store, templating
from wfs.errors import WfsError
from wfs.resources import resource_dir

if TYPE_CHECKING:
    from wfs.layout import Layout


class Form(NamedTuple):
    """How one kind of source (commands or agents) is written for an editor."""

    path: str  # relative to the project root; {name} is the command or agent name
    format: str  # "markdown", "plain", "gemini-command" or "codex-agent"
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


_MARKDOWN_AGENT = (("name", "@name"), ("description", "@description"))
# Where Claude Code, Gemini CLI and Codex CLI read SessionStart hooks: an array of
# matcher groups, each {"matcher" (optional), "hooks": [{"type": "command", ...}]}.
_SESSION_START = ("hooks", "SessionStart")

TARGETS: dict[str, Target] = {
    "claude": Target(
        "claude",
        "Claude Code",
        Form(
            ".claude/commands/wfs/{name}.md",
            "markdown",
            (
                ("description", "@description"),
                ("argument-hint", "@argument-hint"),
                ("allowed-tools", "@allowed-tools"),
            ),
        ),
        Form(".claude/agents/{name}.md", "markdown", (*_MARKDOWN_AGENT, ("tools", "@tools"))),
        "$ARGUMENTS",
        True,
        "/wfs:",
        "claude",
        blocks=(Extra("CLAUDE.md", "editor-md.md"),),
        settings=(
            Setting(".claude/settings.json", _SESSION_START, "", "claude-hook.json"),
            Setting(".mcp.json", ("mcpServers",), "wfs", "claude-mcp.json", "mcp"),
            # With the server, its read-only tools run without asking.
            *(
                Setting(".claude/settings.json", ("permissions", "allow"), "", template, MCP_TOOLS)
                for template in (
                    "claude-allow-status.json",
                    "claude-allow-next.json",
                    "claude-allow-task_show.json",
                    "claude-allow-validate.json",
                )
            ),
        ),
    ),
    "gemini": Target(
        "gemini",
        "Gemini CLI",
        Form(".gemini/commands/wfs/{name}.toml", "gemini-command"),
        Form(
            ".gemini/agents/{name}.md",
            "markdown",
            (
                *_MARKDOWN_AGENT,
                ("kind", "local"),
                ("max_turns", "@max-turns"),
                ("timeout_mins", "@timeout-mins"),
            ),
        ),
        "{{args}}",
        True,
        "/wfs:",
        "gemini",
        blocks=(Extra("GEMINI.md", "editor-md.md"),),
        settings=(
            # Headless (-p), Gemini CLI puts a SessionStart hook's text before the prompt,
            # and a /wfs: command is then no command: wfs's digest comes with the prompt
            # instead (BeforeAgent puts it after), and an earlier SessionStart hook goes.
            Setting(".gemini/settings.json", ("hooks", "BeforeAgent"), "", "gemini-hook.json"),
            Setting(".gemini/settings.json", _SESSION_START, "", "gemini-hook.json", RETIRED),
            # Its subagents run unattended: in the default mode they may not write.
            Setting(
                ".gemini/settings.json", ("general",), "defaultApprovalMode", "gemini-mode.json"
            ),
        ),
        shell_policy=(Extra(".gemini/policies/wfs.toml", "gemini-policy.toml"),),
    ),
    "codex": Target(
        "codex",
        "Codex CLI",
        Form(
            ".agents/skills/wfs-{name}/SKILL.md",
            "markdown",
            (("name", "wfs-{name}"), ("description", "@description")),
        ),
        Form(".codex/agents/{name}.toml", "codex-agent"),
        "ARGS",
        False,
        # The skills are also loaded by opencode, Copilot CLI, Qwen Code and Gemini CLI:
        # they are named as skills ($wfs-execute is Codex's own way to mention one).
        "wfs-",
        "codex",
        extras=(Extra(".codex/rules/wfs.rules", "codex.rules"),),
        blocks=(Extra("AGENTS.md", "agents-md.md"),),  # Codex's instruction file
        settings=(Setting(".codex/hooks.json", _SESSION_START, "", "codex-hook.json"),),
    ),
    "cursor": Target(
        "cursor",
        "Cursor",
        Form(".cursor/commands/wfs-{name}.md", "plain"),
        # A subagent runs in the foreground unless its file says otherwise.
        Form(
            ".cursor/agents/{name}.md", "markdown", (*_MARKDOWN_AGENT, ("is_background", "false"))
        ),
        "ARGS",
        False,
        "/wfs-",
        "cursor",
        extras=(Extra(".cursor/rules/wfs.mdc", "cursor-rule.mdc"),),
        settings=(
            # hooks.json needs its version; a user's own hooks file has it too.
            Setting(".cursor/hooks.json", (), "version", "cursor-hooks-version.json", SHARED),
            Setting(".cursor/hooks.json", ("hooks", "sessionStart"), "", "cursor-hook.json"),
            # The Cursor CLI's project permissions: `wfs ...` shell commands run unasked.
            Setting(".cursor/cli.json", ("permissions", "allow"), "", "cursor-permission.json"),
        ),
    ),
    "copilot": Target(
        "copilot",
        "GitHub Copilot CLI",
        # Skills: Copilot CLI and VS Code load them from .github/skills (VS Code no
        # longer loads prompt files). The model invokes one with its `skill` tool;
        # allowed-tools grants the `wfs` calls in an interactive session only.
        Form(
            ".github/skills/wfs-{name}/SKILL.md",
            "markdown",
            (
                ("name", "wfs-{name}"),
                ("description", "@description"),
                ("allowed-tools", "shell(wfs:*)"),
            ),
        ),
        Form(".github/agents/{name}.agent.md", "markdown", _MARKDOWN_AGENT),
        "ARGS",
        False,
        "/wfs-",
        "copilot",
        extras=(Extra(".github/hooks/wfs.json", "copilot-hook.json"),),
        blocks=(Extra(".github/copilot-instructions.md", "editor-md.md"),),
        setup=(
            "Copilot CLI: no project setting can allow `wfs`; add "
            "--allow-tool 'shell(wfs:*)' to headless runs, e.g. copilot -p "
            "'/wfs-execute --all' --allow-tool 'shell(wfs:*)' --allow-tool write "
            "(interactive sessions allow it once a wfs skill is loaded)"
        ),
    ),
    "opencode": Target(
        "opencode",
        "opencode",
        Form(".opencode/commands/wfs-{name}.md", "markdown", (("description", "@description"),)),
        Form(
            ".opencode/agents/{name}.md",
            "markdown",
            (("description", "@description"), ("mode", "subagent")),
        ),
        "$ARGUMENTS",
        True,
        "/wfs-",
        "opencode",
        # opencode loads every .js file of .opencode/plugins/ as a plugin.
        extras=(Extra(".opencode/plugins/wfs-prime.js", "opencode-plugin.js"),),
        blocks=(Extra("AGENTS.md", "agents-md.md"),),
        # A rule of `permission.bash`: `wfs ...` runs without asking, here-documents
        # included. opencode applies the last rule that matches, and merges this file
        # after the user's (global, then the project's opencode.json and .jsonc).
        settings=(
            Setting(
                ".opencode/opencode.json",
                ("permission", "bash"),
                "wfs *",
                "opencode-permission.json",
            ),
        ),
    ),
    "qwen": Target(
        "qwen",
        "Qwen Code",
        Form(
            ".qwen/commands/wfs/{name}.md",
            "markdown",
            (("description", "@description"), ("argument-hint", "@argument-hint")),
        ),
        # Qwen Code runs a subagent in the background unless told otherwise; wfs's run
        # in the foreground, so that the answer comes back before the loop goes on.
        Form(".qwen/agents/{name}.md", "markdown", (*_MARKDOWN_AGENT, ("background", "false"))),
        "{{args}}",
        True,
        "/wfs:",
        "qwen",
        blocks=(Extra("QWEN.md", "editor-md.md"),),
        settings=(
            Setting(".qwen/settings.json", _SESSION_START, "", "qwen-hook.json"),
            # Headless, Qwen Code offers no shell tool unless a rule allows it, and only
            # one spelled with the tool's own name (`Shell`, not `Bash`) does.
            Setting(".qwen/settings.json", ("permissions", "allow"), "", "qwen-allow.json"),
            # Its subagents run unattended: in the default ("auto") mode, headless, no
            # agent gets a tool that edits files.
            Setting(".qwen/settings.json", ("tools",), "approvalMode", "qwen-mode.json"),
        ),
        answers="file",
    ),
    # Devin Local (Devin Desktop, which Windsurf became) and Devin CLI: one format.
    "devin": Target(
        "devin",
        "Devin",
        Form(
            ".devin/skills/wfs-{name}/SKILL.md",
            "markdown",
            (
                ("name", "wfs-{name}"),
                ("description", "@description"),
                ("argument-hint", "@argument-hint"),
            ),
        ),
        Form(".devin/agents/{name}/AGENT.md", "markdown", _MARKDOWN_AGENT),
        "ARGS",
        False,
        "/wfs-",
        "devin",
        extras=(Extra(".devin/rules/wfs.md", "devin-rule.md"),),
        settings=(
            Setting(".devin/config.json", ("permissions", "allow"), "", "devin-permission.json"),
            # The project's hooks file is the hooks object itself (Claude Code's events).
            Setting(".devin/hooks.v1.json", ("SessionStart",), "", "devin-hook.json"),
        ),
        # Windsurf before Devin Local read the agents as skills there (and Devin still
        # reads .windsurf/skills): an earlier install's files stay wfs's own.
        agent_copies=(
            Form(
                ".windsurf/skills/{name}/SKILL.md",
                "markdown",
                (("name", "{name}"), ("description", "@description")),
            ),
        ),
    ),
    "agents-md": Target(
        "agents-md",
        "any agent that reads AGENTS.md",
        Form(".agents/wfs/commands/{name}.md", "plain"),
        Form(".agents/wfs/agents/{name}.md", "plain"),
        "ARGS",
        False,
        "wfs-",
        "none",
        blocks=(Extra("AGENTS.md", "agents-md.md"),),
    ),
}

# Other names a target answers to: Windsurf is now Devin Desktop.
TARGET_ALIASES = {"windsurf": "devin"}

# Bundles shipped in this repository rather than installed into a project: the Claude
# Code plugin (with the marketplace file at the repository root) and the Gemini CLI
# extension. Paths are relative to the repository root.
BUNDLES: dict[str, tuple[Target, tuple[Extra, ...]]] = {
    "claude-plugin": (
        TARGETS["claude"]._replace(
            name="claude-plugin",
            commands=TARGETS["claude"].commands._replace(path="editors/claude/commands/{name}.md"),
            agents=TARGETS["claude"].agents._replace(path="editors/claude/agents/{name}.md"),
            agent_prefix="wfs:",
            # Claude Code replaces the variable in a plugin's commands.
            agents_shown="${{CLAUDE_PLUGIN_ROOT}}/agents/{name}.md",
        ),
        (
            Extra("editors/claude/.claude-plugin/plugin.json", "claude-plugin.json"),
            Extra(".claude-plugin/marketplace.json", "claude-marketplace.json"),
        ),
    ),
    "gemini-extension": (
        TARGETS["gemini"]._replace(
            name="gemini-extension",
            commands=TARGETS["gemini"].commands._replace(
                path="editors/gemini/commands/wfs/{name}.toml"
            ),
            agents=TARGETS["gemini"].agents._replace(path="editors/gemini/agents/{name}.md"),
            agents_shown="~/.gemini/extensions/wfs/agents/{name}.md",
        ),
        (Extra("editors/gemini/gemini-extension.json", "gemini-extension.json"),),
    ),
}

BLOCK_BEGIN = "<!-- wfs:begin (written by `wfs agents install`; edit outside these lines) -->"
BLOCK_END = "<!-- wfs:end -->"


class Source(NamedTuple):
    """One source file of `agents/`: its header and its (unrendered) body."""

    kind: str  # "commands" or "definitions"
    name: str  # the file name without .md
    header: dict[str, str]
    body: str


class Rendered(NamedTuple):
    """One thing an install writes: a whole file, a managed block inside a file, or an
    entry in a JSON settings file."""

    relative: str  # as shown: relative to the project root, or "~/..." for home files
    data: bytes  # the file, the block (markers included) or the entry (JSON)
    kind: str  # "file", "block", "setting" or "home"
    setting: Setting | None = None  # for "setting"


class Planned(NamedTuple):
    """One rendered thing compared with the disk."""

    path: Path
    relative: str
    data: bytes  # what the file should contain once installed
    state: str  # "missing", "same" or "differs"
    kind: str  # "file", "block", "setting" or "home"
    # What the file becomes when wfs's part is taken out; None: the file goes.
    removed: bytes | None


# Whether to install the MCP server entry (Setting.option "mcp"), from --mcp/--no-mcp:
# "on" and "off" as asked; "add": also when it is missing, but a differing entry is the
# user's and left alone; "keep": only when it is there and wfs's own.
# wfs's name on the package index (`wfs` there is another project); the command and the
# import package stay `wfs`.
DISTRIBUTION = "wfs-sessions"

McpMode = str
MCP_MODES = ("on", "off", "add", "keep")


_HEADER_LINE = re.compile(r"^([a-z][a-z-]*):[ ]+(\S.*)$")


def agents_dir() -> Path:
    return Path(str(resource_dir("agents")))


def read_source(path: Path, kind: str) -> Source:
    """Split a source file into its `key: value` header and its body."""
    where = f"agents/{kind}/{path.name}"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        raise WfsError(f"{where}:1: expected a '---' header line")
    header: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line == "---":
            body = "\n".join(lines[number:]).lstrip("\n")
            return Source(kind, path.stem, header, body)
        match = _HEADER_LINE.match(line)
        if not match:
            raise WfsError(f"{where}:{number}: expected 'key: value' in the header")
        header[match.group(1)] = match.group(2).strip()
    raise WfsError(f"{where}: the header has no closing '---' line")


def sources(kind: str) -> list[Source]:
    """Every command (kind "commands") or agent (kind "definitions"), sorted by name."""
    folder = agents_dir() / kind
    return [read_source(path, kind) for path in sorted(folder.glob("*.md"))]


def _context(target: Target) -> dict[str, Any]:
    """What a template may use to spell things the way `target`'s editor does."""

    def command(name: str) -> str:
        return target.slash + name

    def agent_file(name: str) -> str:
        return (target.agents_shown or target.agents.path).format(name=name)

    def command_file(name: str) -> str:
        return target.commands.path.format(name=name)

    return {
        "target": target.name,
        "editor": target.editor,
        "arguments": target.arguments,
        "substitutes": target.substitutes,
        "slash": target.slash,
        "delegate": target.delegate,
        "agent_prefix": target.agent_prefix,
        "answers": target.answers,
        "command": command,
        "agent_file": agent_file,
        "command_file": command_file,
    }


def render_text(text: str, target: Target, command_name: str = "") -> str:
    """`text` (a body or a header value) with the target's spelling filled in."""
    context = {**_context(target), "command_name": command_name}
    return templating.environment().from_string(text).render(**context)


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


def _fields(form: Form, name: str, header: dict[str, str]) -> list[tuple[str, str]]:
    fields = []
    for key, value in form.fields:
        if value.startswith("@"):
            if value[1:] in header:
                fields.append((key, header[value[1:]]))
        else:
            fields.append((key, value.format(name=name)))
    return fields


def render_file(source: Source, target: Target, form: Form | None = None) -> tuple[str, bytes]:
    """The relative path and the content of `source` installed for `target` (in `form`,
    by default the target's form for commands or for agents)."""
    body = render_text(source.body, target, source.name).rstrip("\n") + "\n"
    header = {key: render_text(value, target, source.name) for key, value in source.header.items()}
    if form is None:
        form = target.commands if source.kind == "commands" else target.agents
    relative = form.path.format(name=source.name)
    if form.format == "gemini-command":
        text = (
            f"description = {jsonio.string(header.get('description', ''))}\n"
            f"prompt = {toml_string(body)}\n"
        )
    elif form.format == "codex-agent":
        text = (
            f"name = {jsonio.string(source.name)}\n"
            f"description = {jsonio.string(header['description'])}\n"
            f"developer_instructions = {toml_string(body)}\n"
        )
    elif form.format == "plain":
        text = body
    else:
        text = frontmatter(_fields(form, source.name, header)) + "\n" + body
    return relative, text.encode("utf-8")


def _render_extra(extra: Extra, target: Target, sharing: list[Target] | None = None) -> bytes:
    context = {
        **_context(target),
        "version": __version__,
        "commands": [(s.name, s.header["description"]) for s in sources("commands")],
        "sharing": [_context(t) for t in sharing or [target]],
    }
    template = templating.template(f"files/{extra.template}")
    return template.render(**context).encode("utf-8")


def sharing(relative: str) -> list[Target]:
    """The targets that write a block into the file `relative`, in TARGETS order.

    Their blocks are one block (a file holds at most one): rendered from the first one's
    template with every one's spelling (`sharing` in the template), the same whichever of
    them installs it, so each can be installed, checked and removed beside the others."""
    return [t for t in TARGETS.values() if any(b.path == relative for b in t.blocks)]


def _render_block(relative: str) -> bytes:
    owners = sharing(relative)
    (extra,) = [b for b in owners[0].blocks if b.path == relative]
    inner = _render_extra(extra, owners[0], owners).decode("utf-8").strip("\n")
    return f"{BLOCK_BEGIN}\n{inner}\n{BLOCK_END}\n".encode()


def _target(name: str) -> Target:
    target = TARGETS.get(TARGET_ALIASES.get(name, name))
    if target is None:
        raise WfsError(f"unknown target {name!r}: expected one of {', '.join(TARGETS)}")
    return target


def rendered_files(
    target_name: str, allow_shell: bool = False, mcp: McpMode = "keep"
) -> list[Rendered]:
    """Everything `target_name` installs, sorted: project files, blocks, settings, home files."""
    target = _target(target_name)
    files = [
        render_file(source, target)
        for kind in ("commands", "definitions")
        for source in sources(kind)
    ]
    files += [
        render_file(source, target, form)
        for form in target.agent_copies
        for source in sources("definitions")
    ]
    files += [(extra.path, _render_extra(extra, target)) for extra in target.extras]
    rendered = [Rendered(path, data, "file") for path, data in sorted(files)]
    for extra in target.blocks:
        rendered.append(Rendered(extra.path, _render_block(extra.path), "block"))
    for setting in target.settings:
        if setting.option in ("mcp", MCP_TOOLS) and mcp == "off":
            continue
        entry = (
            b""
            if setting.option == RETIRED
            else _render_extra(Extra(setting.path, setting.template), target)
        )
        rendered.append(Rendered(setting.path, entry, "setting", setting))
    if allow_shell:
        rendered += [
            Rendered(f"~/{extra.path}", _render_extra(extra, target), "home")
            for extra in target.shell_policy
        ]
    return rendered


def bundle_files(bundle: str) -> list[tuple[str, bytes]]:
    """The files of a bundle shipped in the repository, relative to its root."""
    target, manifests = BUNDLES[bundle]
    files = [
        render_file(source, target)
        for kind in ("commands", "definitions")
        for source in sources(kind)
    ]
    files += [(extra.path, _render_extra(extra, target)) for extra in manifests]
    return sorted(files)


# ---------------------------------------------------------------- comparing with the disk


def _read(path: Path, relative: str) -> bytes | None:
    if path.is_dir():
        raise WfsError(f"{relative}: is a directory; expected a file or nothing")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise WfsError(f"{relative}: cannot read: {err.strerror}") from None


def _split_block(text: str, relative: str) -> tuple[str, str, str] | None:
    """(before, block, after) of the wfs block in `text`, or None when it has none."""
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == BLOCK_BEGIN]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == BLOCK_END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise WfsError(
            f"{relative}: the wfs block is broken (expected one {BLOCK_BEGIN!r} line and, "
            f"after it, one {BLOCK_END!r} line); fix or delete those lines by hand"
        )
    start, end = begins[0], ends[0] + 1
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def _plan_block(path: Path, relative: str, block: bytes) -> Planned:
    current = _read(path, relative)
    text = (current or b"").decode("utf-8", "replace")
    parts = _split_block(text, relative) if current is not None else None
    if parts is None:
        # Appended after the user's text, one blank line between.
        before = text if not text or text.endswith("\n") else text + "\n"
        joined = before + ("\n" if before.strip() else "") + block.decode("utf-8")
        return Planned(path, relative, joined.encode("utf-8"), "missing", "block", None)
    before, found, after = parts
    state = "same" if found.encode("utf-8") == block else "differs"
    installed = (before + block.decode("utf-8") + after).encode("utf-8")
    # Removing takes the blank line the install put before the block with it.
    if before.endswith("\n\n"):
        before = before[:-1]
    rest = before + after
    return Planned(
        path, relative, installed, state, "block", rest.encode("utf-8") if rest.strip() else None
    )


def _home() -> Path:
    return Path.home()


def plan_install(
    layout: Layout,
    target_name: str,
    allow_shell: bool = False,
    mcp: McpMode = "keep",
    lenient: bool = False,
) -> list[Planned]:
    """What installing `target_name` into the project would do to each file.

    `lenient`: a settings file that cannot be read counts as not holding wfs's entry
    (instead of an error)."""
    planned = []
    rendered = rendered_files(target_name, allow_shell, mcp)
    with_server = _mcp_server_kept(layout, rendered, mcp, lenient)
    settings_seen: set[str] = set()
    for item in rendered:
        if item.kind == "home":
            path = _home() / item.relative.removeprefix("~/")
            store.confine(path.parent)  # the user's own file, asked for by an option
        else:
            path = layout.root / item.relative
            layout.check_inside(path)
        if item.kind == "block":
            planned.append(_plan_block(path, item.relative, item.data))
            continue
        if item.kind == "setting" and item.setting is not None:
            if item.relative in settings_seen:
                continue
            settings_seen.add(item.relative)
            entries = [
                (other.setting, other.data)
                for other in rendered
                if other.relative == item.relative
                and other.setting is not None
                and (with_server or other.setting.option not in ("mcp", MCP_TOOLS))
            ]
            if not entries:
                continue
            try:
                planned.append(_plan_settings(path, item.relative, entries))
            except WfsError:
                if not lenient:
                    raise
            continue
        current = _read(path, item.relative)
        state = "missing" if current is None else "same" if current == item.data else "differs"
        planned.append(Planned(path, item.relative, item.data, state, item.kind, None))
    return planned


def _mcp_server_kept(layout: Layout, rendered: list[Rendered], mcp: McpMode, lenient: bool) -> bool:
    """Whether the `wfs mcp` server entry (and the entries that go with it) is part of
    the install, as `mcp` says (see McpMode)."""
    servers = [i for i in rendered if i.setting is not None and i.setting.option == "mcp"]
    if not servers or mcp == "on":
        return bool(servers)
    server = servers[0]
    assert server.setting is not None
    try:
        entry = [(server.setting, server.data)]
        state = _plan_settings(layout.root / server.relative, server.relative, entry).state
    except WfsError:
        if not lenient:
            raise
        return False
    return state in {"keep": ("same",), "add": ("same", "missing")}.get(mcp, ())


# ---------------------------------------------------------------- entries in settings files


def _plan_settings(path: Path, relative: str, items: list[tuple[Setting, bytes]]) -> Planned:
    """The settings file with wfs's entries in it (and the retired ones out), and without
    them. Entries of one file are planned together, so that each keeps the others."""
    wanted = [
        (setting, jsonio.parse_as_written(data, f"agents/files/{setting.template}"))
        for setting, data in items
        if setting.option != RETIRED
    ]
    created: Any = {}
    for setting, entry in wanted:
        created = _insert(created, setting, entry, None)
    created_bytes = jsonedit.dump(created)
    current = _read(path, relative)
    if current is None:
        return Planned(path, relative, created_bytes, "missing", "setting", None)
    document = jsonedit.parse(current, relative)
    value, rest, states = document.value, document.value, set()
    for setting, _ in items:
        retired = _container(value, setting, relative)
        if setting.option == RETIRED and _entries(retired, setting, None):
            value = rest = _remove(value, setting, None)
            states.add("missing")  # wfs's own entry of an earlier install: it goes
    for setting, entry in wanted:
        container = _container(value, setting, relative)
        found = _entries(container, setting, entry)
        if setting.option != SHARED:
            rest = _remove(rest, setting, entry)
        if not found:
            value = _insert(value, setting, entry, None)
            states.add("missing")
        elif [container[where] for where in found] != [entry]:
            # wfs's entry replaces them, where the first of them was
            value = _insert(_remove(value, setting, entry), setting, entry, found[0])
            states.add("differs")
    state = "differs" if "differs" in states else "missing" if states else "same"
    installed = current if state == "same" else jsonedit.dump(value, document)
    # The file goes only when it is exactly the one wfs creates.
    removed = None if current == created_bytes else jsonedit.dump(rest, document)
    return Planned(path, relative, installed, state, "setting", removed)


def _container(root: dict[str, Any], setting: Setting, relative: str) -> Any:
    """The array or object wfs's entry goes in, or None when it is not there yet."""
    value: Any = root
    for depth, key in enumerate(setting.keys):
        value = value.get(key)
        last = depth == len(setting.keys) - 1
        expected = list if last and not setting.name else dict
        if value is None:
            return None
        if not isinstance(value, expected):
            where = jsonedit.pointer(list(setting.keys[: depth + 1]))
            wanted = "an array" if expected is list else "an object"
            raise WfsError(
                f"{relative}: {where}: expected {wanted}, found {jsonedit.kind(value)}; "
                "fix it (or remove it) and install again"
            )
    return value


def _entries(container: Any, setting: Setting, entry: Any) -> list[Any]:
    """Where wfs's entries are in `container`: indexes, or the key."""
    if container is None:
        return []
    if setting.name:
        return [setting.name] if setting.name in container else []
    return [i for i, item in enumerate(container) if _is_wfs(item, entry)]


def _is_wfs(item: Any, entry: Any) -> bool:
    """Whether an array's `item` is wfs's: the rule wfs adds (a string, as written), or
    else a hook running `wfs prime`, alone (Cursor's) or in a group of hooks."""
    if isinstance(entry, str):
        return bool(item == entry)
    return _is_wfs_prime(item) or _runs_wfs_prime(item)


def _runs_wfs_prime(group: Any) -> bool:
    """Whether a SessionStart hook group is wfs's: it runs `wfs prime`."""
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and any(_is_wfs_prime(hook) for hook in hooks)


def _is_wfs_prime(hook: Any) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and command.split()[:2] == ["wfs", "prime"]


def _insert(root: dict[str, Any], setting: Setting, entry: Any, at: int | None) -> Any:
    """`root` with `entry` added (at index `at` of an array, default: its end); the
    objects on the way are created where missing, at the end of their parent."""

    def into(value: Any, depth: int) -> Any:
        if depth == len(setting.keys):
            if setting.name:
                return {**value, setting.name: entry}
            items = list(value)
            items.insert(len(items) if at is None else at, entry)
            return items
        key = setting.keys[depth]
        last = depth == len(setting.keys) - 1
        empty: Any = [] if last and not setting.name else {}
        child = value.get(key)
        return {**value, key: into(empty if child is None else child, depth + 1)}

    return into(root, 0)


def _remove(root: dict[str, Any], setting: Setting, entry: Any) -> Any:
    """`root` without wfs's entries (`entry`: the one wfs adds, None for one an earlier
    install added); what that leaves empty on the way goes too."""

    def out(value: Any, depth: int) -> Any:
        if depth == len(setting.keys):
            if setting.name:
                return {k: v for k, v in value.items() if k != setting.name}
            kept = []
            for item in value:
                if not _is_wfs(item, entry):
                    kept.append(item)
                    continue
                # A hook of the user's that shares wfs's group stays.
                hooks = item.get("hooks") if isinstance(item, dict) else None
                theirs = [hook for hook in hooks or () if not _is_wfs_prime(hook)]
                if theirs:
                    kept.append({**item, "hooks": theirs})
            return kept
        key = setting.keys[depth]
        if key not in value:
            return value
        child = out(value[key], depth + 1)
        if child:
            return {**value, key: child}
        return {k: v for k, v in value.items() if k != key}

    return out(root, 0)


def mcp_requirement() -> str:
    """The `mcp` extra's requirement (`mcp<3,>=2.3`) as pyproject.toml, its one place,
    declares it: from the installed distribution's metadata, else (wfs run from a source
    tree it was never installed from) from the pyproject.toml beside the package."""
    import importlib.metadata  # deferred: ~12 ms, only to say what to install

    try:
        requires = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        requires = []
    for line in requires:
        requirement, _, marker = line.partition(";")
        if re.fullmatch(r"\s*extra\s*==\s*[\"']mcp[\"']\s*", marker):
            return requirement.strip()
    import tomllib  # deferred: only an uninstalled source tree reads pyproject.toml

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    with pyproject.open("rb") as handle:
        extras = tomllib.load(handle)["project"]["optional-dependencies"]
    return str(extras["mcp"][0])


def mcp_install_hint() -> str:
    """How to install what `wfs mcp` needs: the extra from the package index, or the SDK
    into the very Python this wfs runs in, however wfs was installed (a clone's venv,
    pipx, uv tool): those of pipx and uv come without pip."""
    import importlib.util  # deferred: only to say what to install

    requirement = mcp_requirement()
    if (Path(sys.prefix) / "pipx_metadata.json").is_file():
        here = ["pipx", "inject", DISTRIBUTION, requirement]
    elif importlib.util.find_spec("pip") is not None:
        here = [sys.executable, "-m", "pip", "install", requirement]
    else:
        here = ["uv", "pip", "install", "--python", sys.executable, requirement]
    index = platform.shell_join(["pip", "install", f"{DISTRIBUTION}[mcp]"])
    return f"{index}, or into the Python wfs runs in: {platform.shell_join(here)}"


def mcp_extra_installed() -> bool:
    """Whether `wfs mcp` can run here: the extra's MCP SDK 2.x (2.3 or later) is installed."""
    import importlib.metadata  # deferred: ~12 ms, only to look for the optional extra

    try:
        if importlib.util.find_spec("mcp") is None:
            return False
        version = importlib.metadata.version("mcp")
    except (ImportError, ValueError):
        return False
    numbers = re.findall(r"\d+", version)[:2]
    major, minor = (int(n) for n in (numbers + ["0", "0"])[:2])
    return major == 2 and minor >= 3


def mcp_mode(target_name: str | None, option: bool | None, installing: bool) -> McpMode:
    """What becomes of claude's `wfs mcp` entry in .mcp.json: on or off as --mcp and
    --no-mcp say; without them kept as it is, or added by an install when the mcp extra
    is installed."""
    if option is not None:
        return "on" if option else "off"
    if installing and target_name == "claude" and mcp_extra_installed():
        return "add"
    return "keep"


def _refuse_differing(planned: Iterable[Planned], done: str, verb: str) -> None:
    differing = list(dict.fromkeys(p.relative for p in planned if p.state == "differs"))
    if differing:
        raise WfsError(
            f"{len(differing)} file(s) differ from the shipped version and would be "
            f"{done}: {', '.join(differing)}; nothing was changed "
            f"(use --force to {verb} them anyway)"
        )


def install(
    layout: Layout,
    target_name: str,
    force: bool,
    allow_shell: bool = False,
    mcp: McpMode = "keep",
) -> list[tuple[str, str]]:
    """Install `target_name`; returns (path, "written" | "unchanged" | "overwritten").

    All or nothing: when a file differs from the shipped one and `force` is not set,
    nothing is written and the error names every such file."""
    planned = plan_install(layout, target_name, allow_shell, mcp)
    if not force:
        _refuse_differing(planned, "overwritten", "replace")
    for item in planned:  # temporary files an earlier, killed install left behind
        for leftover in item.path.parent.glob(f".{item.path.name}.*.tmp"):
            store.remove(leftover)
    # Every file is staged before any is replaced: a failure (a full disk, a kill while
    # staging) leaves the editor's folders as they were.
    changed = [item for item in planned if item.state != "same"]
    staged: list[tuple[Planned, Path]] = []
    try:
        for item in changed:
            staged.append((item, store.stage(item.path, item.data)))
    except BaseException:
        for _, temporary in staged:
            temporary.unlink(missing_ok=True)
        raise
    for item, temporary in staged:
        store.move(temporary, item.path)
    actions = [
        (
            item.relative,
            {"same": "unchanged", "missing": "written"}.get(item.state, "overwritten"),
        )
        for item in planned
    ]
    return _one_per_file(actions, ("overwritten", "written", "unchanged"))


def _one_per_file(rows: list[tuple[str, str]], first: tuple[str, ...]) -> list[tuple[str, str]]:
    """One (path, state) row per file, in order: a settings file holding several of
    wfs's entries shows the state that comes first in `first`."""
    merged: dict[str, str] = {}
    for path, state in rows:
        if path not in merged or first.index(state) < first.index(merged[path]):
            merged[path] = state
    return list(merged.items())


def installed_targets(layout: Layout) -> list[str]:
    """The targets of which at least one file (or block) is in the project; a block that
    several targets share says nothing of which of them is installed."""
    return [
        name
        for name in TARGETS
        if any(
            item.state != "missing" and not _shared_block(item)
            for item in plan_install(layout, name, lenient=True)
        )
    ]


def _shared_block(item: Planned) -> bool:
    return item.kind == "block" and len(sharing(item.relative)) > 1


def listing(layout: Layout, target_names: Iterable[str]) -> list[dict[str, str]]:
    """Every file the targets get, and its state in the project: installed (identical),
    differs (changed or outdated) or missing."""
    names = {"same": "installed", "differs": "differs", "missing": "missing"}
    return [
        {"target": name, "path": path, "state": state}
        for name in target_names
        for path, state in _one_per_file(
            [(item.relative, names[item.state]) for item in plan_install(layout, name)],
            ("differs", "missing", "installed"),
        )
    ]


class Checked(NamedTuple):
    target: str
    relative: str
    state: str  # "installed", "missing" or "stale"


def check(
    layout: Layout,
    target_names: list[str] | None,
    allow_shell: bool = False,
    mcp: McpMode = "keep",
) -> list[Checked]:
    """Every file of the given targets (default: those installed) and its state."""
    names = installed_targets(layout) if target_names is None else target_names
    states = {"same": "installed", "missing": "missing", "differs": "stale"}
    return [
        Checked(name, path, state)
        for name in names
        for path, state in _one_per_file(
            [
                (item.relative, states[item.state])
                for item in plan_install(layout, name, allow_shell, mcp)
            ],
            ("stale", "missing", "installed"),
        )
    ]


def remove(
    layout: Layout,
    target_name: str,
    force: bool,
    allow_shell: bool = False,
    mcp: McpMode = "keep",
) -> list[tuple[str, str]]:
    """Remove what `target_name` installs; returns (path, "removed" | "absent" | "kept").

    Only wfs's own files go: a file (or block, or settings entry) that differs from the
    shipped one may be the user's, so nothing is removed unless `force` is set. A block
    or an entry is cut out of its file, which goes only when nothing else is left in it
    (a settings file: when it is exactly as wfs creates it); a block that another
    installed target shares is kept. Folders left empty are removed too; nothing that
    was there before the install is restored."""
    planned = plan_install(layout, target_name, allow_shell, mcp)
    if not force:
        _refuse_differing(planned, "removed", "remove")
    others = set(installed_targets(layout)) - {target_name}
    actions: list[tuple[str, str]] = []
    folders: set[Path] = set()
    for item in planned:
        if item.state == "missing":
            actions.append((item.relative, "absent"))
            continue
        if item.kind == "block" and others & {t.name for t in sharing(item.relative)}:
            actions.append((item.relative, "kept"))
            continue
        if item.removed is not None:
            store.write_bytes(item.path, item.removed)
        else:
            store.remove(item.path)
            if item.kind != "home":
                folders.add(item.path.parent)
        actions.append((item.relative, "removed"))
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        _remove_empty_folders(folder, layout.root)
    return _one_per_file(actions, ("removed", "absent"))


def _remove_empty_folders(folder: Path, root: Path) -> None:
    """Remove `folder` and its parents while they are empty, up to `root` (kept)."""
    while folder != root and root in folder.parents:
        store.guard(folder / "_")
        try:
            folder.rmdir()
        except OSError:  # not empty, or gone already
            return
        folder = folder.parent
