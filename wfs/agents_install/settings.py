"""wfs's entries in JSON files the user (or the editor) also writes: hooks, permission
rules, the MCP server. Each goes in where the editor reads it, keeps the user's
formatting and entries, replaces an earlier wfs's, and comes out alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wfs import jsonedit, jsonio
from wfs.agents_install.base import RETIRED, SHARED, Setting
from wfs.agents_install.render import Planned, read_disk
from wfs.errors import WfsError


def plan_settings(path: Path, relative: str, items: list[tuple[Setting, bytes]]) -> Planned:
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
    current = read_disk(path, relative)
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
