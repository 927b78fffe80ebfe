"""`wfs agents install`: the editor slash commands and agent definitions of `agents/`.

Each command and each agent has one source file (`agents/commands/*.md`,
`agents/definitions/*.md`): a `key: value` header between `---` lines and a Jinja body.
Rendering gives every editor its own format from that single source: Claude Code and
Codex get markdown with YAML frontmatter, Gemini CLI gets TOML. Rendering is a pure
function of the shipped files and the target, so an install can be compared byte for
byte with what is already on disk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from wfs.errors import WfsError

if TYPE_CHECKING:
    from wfs.layout import Layout


class Target(NamedTuple):
    """Where one editor finds commands and agents, and how it spells things."""

    name: str
    command_path: str  # relative to the project root; {name} is the command
    agent_path: str  # relative to the project root; {name} is the agent
    arguments: str  # the editor's placeholder for what the user typed after the command
    slash: str  # how a command is invoked: slash + "execute"
    command_keys: tuple[str, ...]  # header keys carried into a command's frontmatter
    agent_keys: tuple[str, ...]  # header keys carried into an agent's frontmatter


TARGETS: dict[str, Target] = {
    "claude": Target(
        "claude",
        ".claude/commands/wfs/{name}.md",
        ".claude/agents/{name}.md",
        "$ARGUMENTS",
        "/wfs:",
        ("description", "argument-hint", "allowed-tools"),
        ("name", "description", "tools"),
    ),
    "gemini": Target(
        "gemini",
        ".gemini/commands/wfs/{name}.toml",
        ".gemini/agents/{name}.md",
        "{{args}}",
        "/wfs:",
        ("description",),
        ("name", "description"),
    ),
    "codex": Target(
        "codex",
        ".codex/prompts/wfs-{name}.md",
        ".codex/wfs-agents/{name}.md",
        "$ARGUMENTS",
        "/prompts:wfs-",
        ("description", "argument-hint"),
        ("name", "description"),
    ),
}


class Source(NamedTuple):
    """One source file of `agents/`: its header and its (unrendered) body."""

    kind: str  # "commands" or "definitions"
    name: str  # the file name without .md
    header: dict[str, str]
    body: str


class Planned(NamedTuple):
    """One file an install would write, and how it compares with the disk."""

    path: Path
    relative: str
    data: bytes
    state: str  # "missing", "same" or "differs"


_HEADER_LINE = re.compile(r"^([a-z][a-z-]*):[ ]+(\S.*)$")


def agents_dir() -> Path:
    from wfs.resources import resource_dir

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


def _environment(root: Path) -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


def render_text(text: str, target: Target, env: Any) -> str:
    """`text` (a body or a header value) with the target's spelling filled in."""
    return str(
        env.from_string(text).render(
            target=target.name,
            arguments=target.arguments,
            agents_dir=target.agent_path.rsplit("/", 1)[0],
            slash=target.slash,
        )
    )


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
    return value if plain else json.dumps(value, ensure_ascii=False)


def frontmatter(header: dict[str, str], keys: tuple[str, ...]) -> str:
    lines = [f"{key}: {yaml_scalar(header[key])}" for key in keys if key in header]
    return "---\n" + "\n".join(lines) + "\n---\n"


def toml_string(text: str) -> str:
    """A TOML string holding `text` exactly: a multi-line literal when possible."""
    # Literal strings have no escapes: they cannot hold ''' or control characters.
    if "'''" not in text and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
        # A newline right after the opening quotes is not part of the value.
        return "'''\n" + text + "'''"
    return json.dumps(text, ensure_ascii=False)


def render_file(source: Source, target: Target, env: Any) -> tuple[str, bytes]:
    """The relative path and the content of `source` installed for `target`."""
    body = render_text(source.body, target, env).rstrip("\n") + "\n"
    header = {key: render_text(value, target, env) for key, value in source.header.items()}
    if source.kind == "commands":
        relative = target.command_path.format(name=source.name)
        if target.name == "gemini":
            text = (
                f"description = {json.dumps(header.get('description', ''), ensure_ascii=False)}\n"
                f"prompt = {toml_string(body)}\n"
            )
        else:
            text = frontmatter(header, target.command_keys) + "\n" + body
    else:
        relative = target.agent_path.format(name=source.name)
        text = frontmatter(header, target.agent_keys) + "\n" + body
    return relative, text.encode("utf-8")


def rendered_files(target_name: str) -> list[tuple[str, bytes]]:
    """Every file of `target_name`, as (path relative to the project root, bytes)."""
    target = TARGETS.get(target_name)
    if target is None:
        raise WfsError(f"unknown target {target_name!r}: expected one of {', '.join(TARGETS)}")
    env = _environment(agents_dir())
    files = [
        render_file(source, target, env)
        for kind in ("commands", "definitions")
        for source in sources(kind)
    ]
    return sorted(files)


def plan_install(layout: Layout, target_name: str) -> list[Planned]:
    """What installing `target_name` into the project would do to each file."""
    planned = []
    for relative, data in rendered_files(target_name):
        path = layout.root / relative
        layout.check_inside(path)
        if path.is_dir():
            raise WfsError(f"{relative}: is a directory; expected a file or nothing")
        try:
            state = "same" if path.read_bytes() == data else "differs"
        except FileNotFoundError:
            state = "missing"
        except OSError as err:
            raise WfsError(f"{relative}: cannot read: {err.strerror}") from None
        planned.append(Planned(path, relative, data, state))
    return planned


def install(layout: Layout, target_name: str, force: bool) -> list[tuple[str, str]]:
    """Install `target_name`; returns (path, "written" | "unchanged" | "overwritten").

    All or nothing: when a file differs from the shipped one and `force` is not set,
    nothing is written and the error names every such file."""
    from wfs import store

    planned = plan_install(layout, target_name)
    differing = [p.relative for p in planned if p.state == "differs"]
    if differing and not force:
        raise WfsError(
            f"{len(differing)} file(s) differ from the shipped version and would be "
            f"overwritten: {', '.join(differing)}; nothing was written "
            "(use --force to replace them)"
        )
    actions = []
    for item in planned:
        if item.state == "same":
            actions.append((item.relative, "unchanged"))
            continue
        store.write_bytes(item.path, item.data)
        actions.append((item.relative, "written" if item.state == "missing" else "overwritten"))
    return actions
