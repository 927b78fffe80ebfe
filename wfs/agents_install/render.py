"""Rendering: each command and agent of `agents/` (a `key: value` header between `---`
lines and a Jinja body) written for a target, in the format its editor loads, and the
files, blocks and settings entries it needs besides. A pure function of the shipped
files and the target."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from wfs import __version__, templating
from wfs.agents_install import targets
from wfs.agents_install.base import MCP_TOOLS, RETIRED, Extra, Form, McpMode, Setting, Target
from wfs.agents_install.bundles import BUNDLES
from wfs.errors import WfsError
from wfs.resources import resource_dir

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


def read_disk(path: Path, relative: str) -> bytes | None:
    """What the file at `path` holds now, or None when there is none."""
    if path.is_dir():
        raise WfsError(f"{relative}: is a directory; expected a file or nothing")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise WfsError(f"{relative}: cannot read: {err.strerror}") from None


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
    text = form.format(source.name, header, body, _fields(form, source.name, header))
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
    return [t for t in targets.TARGETS.values() if any(b.path == relative for b in t.blocks)]


def _render_block(relative: str) -> bytes:
    owners = sharing(relative)
    (extra,) = [b for b in owners[0].blocks if b.path == relative]
    inner = _render_extra(extra, owners[0], owners).decode("utf-8").strip("\n")
    return f"{BLOCK_BEGIN}\n{inner}\n{BLOCK_END}\n".encode()


def rendered_files(
    target_name: str, allow_shell: bool = False, mcp: McpMode = "keep"
) -> list[Rendered]:
    """Everything `target_name` installs, sorted: project files, blocks, settings, home files."""
    target = targets.target(target_name)
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
