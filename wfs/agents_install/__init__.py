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

The package: `base.py` is the interface a target fills in (pre-commit's lang_base),
`targets/` holds one module per editor, `render.py` renders a target's files,
`settings.py` plans wfs's entries in JSON settings files the user also writes, and
`bundles.py` the bundles shipped in this repository. This module installs, checks and
removes what a target renders, and says what `wfs mcp` needs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from wfs import platform, store
from wfs.agents_install.base import MCP_MODES, MCP_TOOLS, McpMode, toml_string, yaml_scalar
from wfs.agents_install.bundles import BUNDLES
from wfs.agents_install.render import (
    BLOCK_BEGIN,
    BLOCK_END,
    Planned,
    Rendered,
    agents_dir,
    bundle_files,
    read_disk,
    render_text,
    rendered_files,
    sharing,
    sources,
)
from wfs.agents_install.settings import plan_settings
from wfs.agents_install.targets import TARGET_ALIASES, TARGETS
from wfs.errors import WfsError

if TYPE_CHECKING:
    from wfs.layout import Layout

__all__ = [
    "BUNDLES",
    "DISTRIBUTION",
    "MCP_MODES",
    "TARGETS",
    "TARGET_ALIASES",
    "Checked",
    "McpMode",
    "bundle_files",
    "check",
    "install",
    "installed_targets",
    "listing",
    "mcp_extra_installed",
    "mcp_install_hint",
    "mcp_mode",
    "mcp_requirement",
    "plan_install",
    "remove",
    "agents_dir",
    "render_text",
    "rendered_files",
    "sources",
    "toml_string",
    "yaml_scalar",
]

# wfs's name on the package index (`wfs` there is another project); the command and the
# import package stay `wfs`.
DISTRIBUTION = "wfs-sessions"

# ---------------------------------------------------------------- comparing with the disk


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
    current = read_disk(path, relative)
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
                planned.append(plan_settings(path, item.relative, entries))
            except WfsError:
                if not lenient:
                    raise
            continue
        current = read_disk(path, item.relative)
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
        state = plan_settings(layout.root / server.relative, server.relative, entry).state
    except WfsError:
        if not lenient:
            raise
        return False
    return state in {"keep": ("same",), "add": ("same", "missing")}.get(mcp, ())


# ---------------------------------------------------------------- entries in settings files


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

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
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
