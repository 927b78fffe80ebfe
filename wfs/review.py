"""`wfs diff`: what changed in the plan between two versions, task by task.

A version is a git revision or the working tree. Each side is read whole and at once
(one `git ls-tree` and one `git cat-file --batch` for a revision), and only files whose
bytes differ are parsed, so a diff of a 10,000-task session stays quick.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from wfs import git, jsonio, store
from wfs.errors import WfsError
from wfs.layout import SESSION_FILE, SESSION_PREFIX, TASK_DIR, WORKFLOW_DIR, Layout, task_sort_key
from wfs.sessions import session_ids
from wfs.tasks import task_files
from wfs.text import json_kind

STEP_LISTS = ("pre_analysis", "implementation_approach")
_MISSING: Any = object()
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


class SessionFiles(NamedTuple):
    """The raw plan files of one session on one side of the diff."""

    session: bytes | None
    tasks: dict[str, bytes]  # task file name without ".json" -> contents


class Side(NamedTuple):
    rev: str | None  # None: the working tree
    commit: str | None
    sessions: dict[str, SessionFiles]

    def where(self, relative: str) -> str:
        """How a file of this side is named in messages: `REV:path` or `path`."""
        return f"{self.rev}:{relative}" if self.rev is not None else relative


# --------------------------------------------------------------------------- reading


def parse_range(spec: str | None) -> tuple[str, str | None, bool]:
    """`REV` (against the working tree), `A..B`, or `A...B` (from their merge base)."""
    if spec is None:
        return "HEAD", None, False
    for separator, symmetric in (("...", True), ("..", False)):
        if separator in spec:
            first, _, second = spec.partition(separator)
            return first or "HEAD", second or "HEAD", symmetric
    return spec, None, False


def sides(layout: Layout, spec: str | None) -> tuple[Side, Side]:
    """Both versions of the plan that `spec` names."""
    first, second, symmetric = parse_range(spec)
    git.require_repository(layout.root)
    old_commit = git.resolve_commit(layout.root, first)
    if second is None:
        return read_revision(layout, first, old_commit), read_working_tree(layout)
    new_commit = git.resolve_commit(layout.root, second)
    if symmetric:
        base = git.merge_base(layout.root, old_commit, new_commit)
        return (
            read_revision(layout, f"{first}...{second}", base),
            read_revision(layout, second, new_commit),
        )
    return read_revision(layout, first, old_commit), read_revision(layout, second, new_commit)


def read_revision(layout: Layout, rev: str, commit: str) -> Side:
    """The plan files as committed in `commit`."""
    wanted: list[tuple[str, str | None, str]] = []  # (session, task name or None, oid)
    for entry in git.ls_tree(layout.root, commit, WORKFLOW_DIR):
        parts = entry.path.split("/")
        if len(parts) < 3 or parts[0] != WORKFLOW_DIR or not parts[1].startswith(SESSION_PREFIX):
            continue
        if len(parts) == 3 and parts[2] == SESSION_FILE:
            wanted.append((parts[1], None, entry.oid))
        elif len(parts) == 4 and parts[2] == TASK_DIR and _is_task_file(parts[3]):
            wanted.append((parts[1], parts[3][: -len(".json")], entry.oid))
    blobs = git.read_blobs(layout.root, (oid for _, _, oid in wanted))
    found: dict[str, tuple[list[bytes], dict[str, bytes]]] = {}
    for sid, name, oid in wanted:
        session, tasks = found.setdefault(sid, ([], {}))
        if name is None:
            session.append(blobs[oid])
        else:
            tasks[name] = blobs[oid]
    sessions = {
        sid: SessionFiles(session[0] if session else None, tasks)
        for sid, (session, tasks) in found.items()
    }
    return Side(rev, commit, sessions)


def read_working_tree(layout: Layout) -> Side:
    sessions = {}
    for sid in session_ids(layout):
        folder = layout.session_dir(sid)
        if folder.is_symlink():
            layout.check_inside(folder)
        session = _read_if_file(layout, layout.session_file(sid))
        task_dir = layout.task_dir(sid)
        tasks = {}
        for name in task_files(layout, sid):
            raw = _read_if_file(layout, task_dir / name)
            if raw is not None:
                tasks[name[: -len(".json")]] = raw
        sessions[sid] = SessionFiles(session, tasks)
    return Side(None, None, sessions)


def _is_task_file(name: str) -> bool:
    return name.endswith(".json") and not name.startswith(".")


def _read_if_file(layout: Layout, path: Path) -> bytes | None:
    if os.path.isdir(path):
        return None
    return store.read_optional(path, layout.relative(path))


def _parse_object(raw: bytes | None, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    data = jsonio.parse(raw, where)
    if not isinstance(data, dict):
        raise WfsError(f"{where}: expected a JSON object, got {json_kind(data)}")
    return data


# --------------------------------------------------------------------------- comparing


def same_json(first: Any, second: Any) -> bool:
    """Equality of parsed JSON that, unlike `==`, tells `true` from `1` and `1` from `1.0`."""
    if type(first) is not type(second):
        return False
    if isinstance(first, dict):
        return first.keys() == second.keys() and all(same_json(first[k], second[k]) for k in first)
    if isinstance(first, list):
        return len(first) == len(second) and all(map(same_json, first, second))
    return bool(first == second)


def diff_plans(old: Side, new: Side) -> dict[str, Any]:
    """The `wfs diff` report (documented in docs/json-output.md). A file that cannot be
    read on one side does not hide the rest: its task is listed with `unreadable` (why),
    and the report's `unreadable` names each such file (`file:line:column: reason`)."""
    sessions = []
    unreadable: list[str] = []
    for sid in sorted(set(old.sessions) | set(new.sessions)):
        report = _diff_session(sid, old, new, unreadable)
        if report is not None:
            sessions.append(report)
    totals = {"added": 0, "removed": 0, "changed": 0}
    session_totals = dict(totals)
    for report in sessions:
        session_totals[report["status"]] += 1
        for key in totals:
            totals[key] += len(report["tasks"][key])
    return {
        "from": {"rev": old.rev, "commit": old.commit},
        "to": {"rev": new.rev, "commit": new.commit},
        "changed": bool(sessions),
        "summary": {"sessions": session_totals, "tasks": totals},
        "sessions": sessions,
        **({"unreadable": unreadable} if unreadable else {}),
    }


def _session_path(sid: str, name: str) -> str:
    return f"{WORKFLOW_DIR}/{sid}/{name}"


class Unreadable(NamedTuple):
    """A file of one side that cannot be read as a JSON object: why."""

    reason: str


def _parsed(raw: bytes | None, where: str, unreadable: list[str]) -> Any:
    """The object in `raw` (None when there is no file), or Unreadable, noted in
    `unreadable`."""
    try:
        return _parse_object(raw, where)
    except WfsError as err:
        unreadable.append(err.message)
        return Unreadable(err.message)


def _diff_session(sid: str, old: Side, new: Side, unreadable: list[str]) -> dict[str, Any] | None:
    empty = SessionFiles(None, {})
    before = old.sessions.get(sid, empty)
    after = new.sessions.get(sid, empty)
    fields: list[dict[str, Any]] = []
    in_both = sid in old.sessions and sid in new.sessions
    if in_both and before.session != after.session:
        where = _session_path(sid, SESSION_FILE)
        old_data = _parsed(before.session, old.where(where), unreadable)
        new_data = _parsed(after.session, new.where(where), unreadable)
        if isinstance(old_data, dict | None) and isinstance(new_data, dict | None):
            fields = field_changes(old_data or {}, new_data or {})
    added, removed, changed = [], [], []
    for name in sorted(set(before.tasks) | set(after.tasks), key=task_sort_key):
        old_raw, new_raw = before.tasks.get(name), after.tasks.get(name)
        if old_raw == new_raw:
            continue
        where = _session_path(sid, f"{TASK_DIR}/{name}.json")
        old_task = _parsed(old_raw, old.where(where), unreadable)
        new_task = _parsed(new_raw, new.where(where), unreadable)
        if old_task is None:
            added.append(_task_brief(name, new_task))
        elif new_task is None:
            removed.append(_task_brief(name, old_task))
        elif isinstance(old_task, Unreadable) or isinstance(new_task, Unreadable):
            # Named by the side that can be read; why the other cannot.
            broken = new_task if isinstance(new_task, Unreadable) else old_task
            readable = old_task if broken is new_task else new_task
            brief = _task_brief(name, readable)
            changed.append({**brief, "changes": {}, "unreadable": broken.reason})
        else:
            changes = task_changes(old_task, new_task)
            if changes:
                changed.append({**_task_brief(name, new_task), "changes": changes})
    if in_both and not (fields or added or removed or changed):
        return None
    status = (
        "added" if sid not in old.sessions else "removed" if sid not in new.sessions else "changed"
    )
    return {
        "session": sid,
        "status": status,
        "fields": fields,
        "tasks": {"added": added, "removed": removed, "changed": changed},
    }


def _task_brief(name: str, task: dict[str, Any] | Unreadable) -> dict[str, Any]:
    if isinstance(task, Unreadable):
        return {"id": name, "title": None, "status": None, "unreadable": task.reason}
    return {"id": name, "title": task.get("title"), "status": task.get("status")}


def task_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What changed in one task: status, title, dependencies, steps, other fields."""
    changes: dict[str, Any] = {}
    handled: set[tuple[str, ...]] = set()
    for key in ("status", "title"):
        handled.add((key,))
        if not same_json(old.get(key, _MISSING), new.get(key, _MISSING)):
            changes[key] = {"old": old.get(key), "new": new.get(key)}
    old_deps = _get(old, ("context", "depends_on"))
    new_deps = _get(new, ("context", "depends_on"))
    if isinstance(old_deps, list | type(None)) and isinstance(new_deps, list | type(None)):
        handled.add(("context", "depends_on"))
        if not same_json(old_deps, new_deps):
            old_list, new_list = old_deps or [], new_deps or []
            changes["depends_on"] = {
                "old": old_deps,
                "new": new_deps,
                "added": [d for d in new_list if d not in old_list],
                "removed": [d for d in old_list if d not in new_list],
            }
    steps: list[dict[str, Any]] = []
    for list_name in STEP_LISTS:
        path = ("flow_control", list_name)
        old_steps, new_steps = _get(old, path), _get(new, path)
        # The v1 object form of implementation_approach is compared as a plain field.
        if isinstance(old_steps, list | type(None)) and isinstance(new_steps, list | type(None)):
            handled.add(path)
            steps += step_changes(list_name, old_steps or [], new_steps or [])
    if steps:
        changes["steps"] = steps
    fields = field_changes(old, new, skip=handled)
    if fields:
        changes["fields"] = fields
    return changes


def _get(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def field_changes(
    old: Any, new: Any, skip: set[tuple[str, ...]] | None = None, path: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Changed values by JSON path; objects are compared key by key, lists as a whole."""
    if path in (skip or set()) or same_json(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in [*old, *(k for k in new if k not in old)]:
            found += field_changes(
                old.get(key, _MISSING), new.get(key, _MISSING), skip, (*path, key)
            )
        return found
    change: dict[str, Any] = {"path": json_path(path)}
    if old is _MISSING:
        change.update(change="added", new=new)
    elif new is _MISSING:
        change.update(change="removed", old=old)
    else:
        change.update(change="changed", old=old, new=new)
    return [change]


def json_path(path: tuple[str, ...]) -> str:
    """`context.requirements`; keys that are not plain words in brackets: `a["b.c"]`."""
    text = ""
    for key in path:
        if _PLAIN_KEY.fullmatch(key):
            text += f".{key}" if text else key
        else:
            text += f"[{jsonio.string(key)}]"
    return text


def step_name(step: Any, position: int) -> str:
    """A step's name: its `step` name (pre_analysis), else its title, else `#N`."""
    if isinstance(step, dict):
        for key in ("step", "title"):
            value = step.get(key)
            if isinstance(value, str) and value:
                return value
    return f"#{position}"


def step_changes(list_name: str, old: list[Any], new: list[Any]) -> list[dict[str, Any]]:
    """Steps added, removed, changed (which fields) and reordered, matched by name.

    A step whose name is unique on both sides is matched by name, so inserting a step
    does not show every later one as changed; the rest are matched by position.
    """
    old_names = [step_name(s, i + 1) for i, s in enumerate(old)]
    new_names = [step_name(s, i + 1) for i, s in enumerate(new)]
    old_at = {n: i for i, n in enumerate(old_names) if old_names.count(n) == 1}
    new_at = {n: i for i, n in enumerate(new_names) if new_names.count(n) == 1}
    pairs = {old_at[n]: new_at[n] for n in old_at if n in new_at}
    taken = set(pairs.values())
    for i in range(min(len(old), len(new))):
        if i not in pairs and i not in taken:
            pairs[i] = i
            taken.add(i)
    found: list[dict[str, Any]] = []

    def entry(change: str, index: int, name: str, **extra: Any) -> None:
        found.append(
            {"list": list_name, "change": change, "index": index + 1, "name": name, **extra}
        )

    for i in range(len(new)):
        if i not in taken:
            entry("added", i, new_names[i])
    for i in range(len(old)):
        if i not in pairs:
            entry("removed", i, old_names[i])
    for i, j in sorted(pairs.items(), key=lambda pair: pair[1]):
        fields = _changed_keys(old[i], new[j])
        if fields:
            entry("changed", j, new_names[j], fields=fields)
    order_before = [old_names[i] for i in sorted(pairs)]
    order_after = [old_names[i] for i in sorted(pairs, key=lambda i: pairs[i])]
    if order_before != order_after:
        order = [new_names[pairs[i]] for i in sorted(pairs, key=lambda i: pairs[i])]
        found.append({"list": list_name, "change": "reordered", "order": order})
    return found


def _changed_keys(old: Any, new: Any) -> list[str]:
    if same_json(old, new):
        return []
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return ["(whole step)"]
    keys = [*old, *(k for k in new if k not in old)]
    # Step numbers follow array order; a shift is not a change of the step itself.
    return [
        k
        for k in keys
        if not same_json(old.get(k, _MISSING), new.get(k, _MISSING))
        and not (k == "step" and isinstance(old.get(k), int) and isinstance(new.get(k), int))
    ]
