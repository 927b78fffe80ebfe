"""Merging plans with git: attributes, merge drivers and two hooks.

Two branches that change different tasks touch different JSON files, but the views
rendered from them (TODO_LIST.md, IMPL_PLAN.md) and the session's progress fields
change on both sides. Git's default `ort` merge runs merge drivers in memory, before
the working tree holds the merged JSON, so a driver cannot render the views. And
although git re-reads the index after the pre-merge-commit hook, `git merge` builds the
commit from the tree it computed before that hook (git 2.39), so staging fresh views
there does not put them in the merge commit. Hence:

- the `wfs-views` driver leaves a conflict-free view (the clean text merge when there
  is one, else ours); it may be stale at that point,
- the `wfs-json` driver merges task and session JSON key by key, so edits to different
  fields of one file combine; a real conflict falls back to git's text merge,
- the pre-merge-commit hook notes that a merge commit is being made on top of HEAD,
- the post-merge hook, once that merge commit exists and the working tree holds the
  merged JSON, re-derives the progress fields and views of every session the merge
  touched and rewrites the merge commit (same parents, message and author) to hold
  them. After `git merge --squash` it re-renders and stages them instead.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from wfs import git, jsonio, render, store
from wfs.errors import WfsError
from wfs.index import load_skeletons
from wfs.layout import SESSION_FILE, SESSION_PREFIX, WORKFLOW_DIR, Layout, task_sort_key
from wfs.render import VIEWS
from wfs.review import same_json
from wfs.schemas import COMPLEXITIES, PHASES
from wfs.sessions import load_session
from wfs.tasks import TaskIndex, refresh_session

ATTRIBUTES_HEADER = (
    "# Written by `wfs init`: plan views are generated, plan JSON merges field by field\n"
    "# (merge drivers set up by `wfs init` in each clone; without them git merges as text)."
)
ATTRIBUTE_LINES = (
    ".workflow/**/TODO_LIST.md merge=wfs-views linguist-generated=true",
    ".workflow/**/IMPL_PLAN.md merge=wfs-views linguist-generated=true",
    ".workflow/**/.task/*.json merge=wfs-json",
    ".workflow/**/workflow-session.json merge=wfs-json",
)
HOOKS = ("pre-merge-commit", "post-merge")
HOOK_MARK = "# wfs-managed hook"
PENDING = "wfs-merge-pending"  # in the git dir: HEAD as the merge commit was being made


def wfs_function(python: str) -> str:
    """A shell function `wfs_run` that calls wfs the way git's shell can: with the
    interpreter that ran `wfs init` (recorded, as pre-commit does, so a shell without the
    virtual environment works), else the `wfs` on PATH, else it says what to do."""
    interpreter = shlex.quote(python)
    missing = shlex.quote(f"wfs: neither {python} nor a wfs on PATH; run `wfs init` again")
    return (
        f'wfs_run() {{ if [ -x {interpreter} ]; then {interpreter} -m wfs "$@"; '
        'elif command -v wfs >/dev/null 2>&1; then wfs "$@"; '
        f"else echo {missing} >&2; return 127; fi; }}"
    )


def drivers(python: str) -> dict[str, str]:
    """The merge drivers' git configuration."""
    return {
        "merge.wfs-views.name": "wfs: keep generated plan views conflict-free",
        "merge.wfs-views.driver": f"{wfs_function(python)}; wfs_run merge-views %O %A %B %P",
        "merge.wfs-json.name": "wfs: merge plan JSON field by field",
        "merge.wfs-json.driver": f"{wfs_function(python)}; wfs_run merge-json %O %A %B %P",
    }


def hook_command(name: str, root_in_repo: str, python: str) -> str:
    """What hook `name` runs; git runs hooks at the top of the work tree."""
    return f'{shlex.quote(python)} -m wfs --root {shlex.quote(root_in_repo)} hook {name} "$@"'


def hook_script(name: str, root_in_repo: str, python: str) -> str:
    # A hook of ours never stops git: at worst the views are left to `wfs render`.
    # wfs merging a task's branch that changes no plan says so (git.PLANS_UNTOUCHED):
    # then there is nothing to refresh, and the hook ends without starting wfs.
    # post-merge cut short (killed) finishes when it is run again by hand; without
    # pre-merge-commit's note it leaves the merge commit alone (as after --no-verify).
    recovery = (
        "run 'wfs hook post-merge ${1:-0}' in the project to finish it"
        if name == "post-merge"
        else "the merge commit keeps the plan views git merged; to refresh them, undo it "
        "('git reset --merge ORIG_HEAD') and merge again"
    )
    return f"""#!/bin/sh
{HOOK_MARK}: written by `wfs init`, which may rewrite it; delete it to opt out.
# Keeps the generated plan views in merge commits fresh (see `wfs init --help`).
[ -z "${{{git.PLANS_UNTOUCHED}:-}}" ] || exit 0  # a merge of wfs's that changes no plan
{wfs_function(python)}
wfs_run --root {shlex.quote(root_in_repo)} hook {name} "$@" ||
  echo "wfs: the {name} hook failed; {recovery}" >&2
exit 0
"""


# --------------------------------------------------------------------------- wfs init


class GitSetup(NamedTuple):
    gitattributes: str  # created | updated | unchanged
    repository: bool  # the root is inside a git work tree
    drivers: str | None  # configured | unchanged (None outside a work tree)
    hooks: dict[str, str]  # name -> installed | updated | unchanged | present | foreign
    hooks_path: str | None  # the hooks folder, relative to the root
    manual: dict[str, str]  # foreign hook name -> the line to add to it by hand

    def changed(self) -> bool:
        return (
            self.gitattributes != "unchanged"
            or self.drivers == "configured"
            or any(v in ("installed", "updated") for v in self.hooks.values())
        )


def setup_git(layout: Layout) -> GitSetup:
    """Idempotently write `.gitattributes` rules, the merge drivers and the hooks."""
    attributes = write_attributes(layout.root / ".gitattributes")
    if not git.is_work_tree(layout.root):
        return GitSetup(attributes, False, None, {}, None, {})
    python = sys.executable
    configured = "unchanged"
    for key, value in drivers(python).items():
        if git.get_config(layout.root, key) != value:
            git.set_config(layout.root, key, value)
            configured = "configured"
    prefix = git.show_prefix(layout.root).rstrip("/") or "."
    folder = git.git_path(layout.root, "hooks")
    store.confine(folder)  # git's folder, outside the work tree in a linked worktree
    hooks, manual = {}, {}
    for name in HOOKS:
        hooks[name] = install_hook(folder / name, hook_script(name, prefix, python), name)
        if hooks[name] == "foreign":
            manual[name] = hook_command(name, prefix, python)
    shown = os.path.relpath(folder, layout.root)
    return GitSetup(attributes, True, configured, hooks, shown, manual)


def write_attributes(path: Path) -> str:
    """Add the missing wfs lines to `.gitattributes`, keeping every existing line."""
    raw = store.read_optional(path, path.name)
    try:
        text = None if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise WfsError(f"{path.name}: cannot read: {err}") from None
    existing = {" ".join(line.split()) for line in (text or "").splitlines()}
    missing = [line for line in ATTRIBUTE_LINES if line not in existing]
    if not missing:
        return "unchanged"
    block = "\n".join(missing) + "\n"
    if ATTRIBUTES_HEADER.splitlines()[0] not in existing:
        block = ATTRIBUTES_HEADER + "\n" + block
        if text and text.strip():
            block = "\n" + block  # set apart from the user's own lines
    if text:
        block = text + ("" if text.endswith("\n") else "\n") + block
    store.write_text(path, block)
    return "created" if text is None else "updated"


def install_hook(path: Path, script: str, name: str) -> str:
    """Write our hook; never touch someone else's (report whether it runs wfs already)."""
    try:  # git's own folder, which no clone brings: a folder here is the user's to fix
        current = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        current = None
    if current is not None and HOOK_MARK not in current:
        return "present" if f"hook {name}" in current else "foreign"
    if current == script and os.access(path, os.X_OK):
        return "unchanged"
    store.write_text(path, script)
    mode = path.stat().st_mode
    path.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return "installed" if current is None else "updated"


# --------------------------------------------------------------------------- drivers


def merge_views(base: Path, ours: Path, theirs: Path, path: str = "") -> str:
    """The `wfs-views` driver: leave a conflict-free view in `ours` (`path`: the file
    merged, for messages).

    The clean text merge when there is one (often right already), else ours unchanged;
    the hook (or `wfs render`) then writes the real view from the merged JSON.
    """
    remove_leftovers(ours)
    sides = {"ours": ours, "base": base, "theirs": theirs}
    merged = git.merge_text(*(_driver_input(p, side, path) for side, p in sides.items()))
    if merged is None:
        return "ours"
    store.write_bytes(ours, merged, durable=False)
    return "merged"


def remove_leftovers(ours: Path) -> None:
    """Remove what a driver killed mid-write left beside git's files: the temporary
    file of its atomic write of `.merge_file_XXXXXX` (git removes its own files, not
    ours), once that file is gone (its merge is over)."""
    for path in ours.parent.glob(f"..merge_file_*.{'?' * 8}.tmp"):
        if not (ours.parent / path.name[1:].rsplit(".", 2)[0]).exists():
            store.remove(path)


_CONFLICT: Any = object()
_MISSING: Any = object()
Resolver = Callable[[tuple[str, ...], Any, Any, Any], Any]


def merge_json(base: Path, ours: Path, theirs: Path, path: str) -> int:
    """The `wfs-json` driver: merge into `ours`; the number of conflicts left (0: clean).

    Objects merge key by key; any other value (lists included) is taken from the side
    that changed it. When both sides changed one value differently, or a file is not a
    JSON object, git's own line merge runs instead, conflict markers and all.
    """
    remove_leftovers(ours)
    sides = {"base": base, "ours": ours, "theirs": theirs}
    raws = [_driver_input(p, side, path) for side, p in sides.items()]
    docs: list[dict[str, Any]] = []
    for reader in (jsonio.parse, jsonio.parse_as_written):  # the second: wider than 64 bits
        try:
            docs = [_load_object(raw, i == 0, reader) for i, raw in enumerate(raws)]
            break
        except ValueError:
            continue
    if docs:
        resolver = _resolve_session if Path(path).name == SESSION_FILE else None
        conflicts: list[tuple[str, ...]] = []
        merged = merge_values(docs[0], docs[1], docs[2], (), conflicts, resolver)
        if not conflicts:
            if same_json(merged, docs[1]):
                return 0
            if same_json(merged, docs[2]):
                data = raws[2]
            elif reader is jsonio.parse:
                data = jsonio.dumps(merged)
            else:  # every number as its side spelled it
                data = jsonio.dumps_as(merged, "  ") + b"\n"
            store.write_bytes(ours, data, durable=False)
            return 0
    # Git's line merge: it may still combine what the JSON merge could not (two
    # lists edited at different ends); its result must parse to count as clean.
    labels = {"ours": f"ours:{path}", "base": f"base:{path}", "theirs": f"theirs:{path}"}
    left = git.merge_file(ours, base, theirs, labels, None)
    if left == 0:
        try:  # as written: a number the JSON merge could not hold (64 bits) is fine here
            document = jsonio.parse_as_written(store.read_file(ours, path), path)
        except WfsError:
            return 1
        if not isinstance(document, dict):
            return 1
    return left


def _driver_input(file: Path, side: str, path: str) -> bytes:
    """The bytes of one side git hands a driver (`file`, of the merge of `path`), read
    as wfs reads any file: a FIFO or a device (which would hang the merge or fill the
    memory) or a file over the input limit is refused, naming the file merged and the
    side (exit 2: git keeps ours and reports a conflict)."""
    return store.read_file(file, f"{path or file} ({side})")


def _load_object(
    raw: bytes, allow_empty: bool, reader: Callable[[bytes, str], Any] = jsonio.parse
) -> dict[str, Any]:
    if allow_empty and not raw.strip():
        return {}  # both sides added the file
    try:
        # With wfs's guards: a merge must not write back an integer read as a float.
        data = reader(raw, "merge")
    except WfsError:
        raise ValueError("not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("not an object")
    return data


def merge_values(
    base: Any,
    ours: Any,
    theirs: Any,
    path: tuple[str, ...],
    conflicts: list[tuple[str, ...]],
    resolve: Resolver | None = None,
) -> Any:
    """Three-way merge of two JSON values; conflicting paths are appended to `conflicts`."""
    if same_json(ours, theirs):
        return ours
    if same_json(base, ours):
        return theirs
    if same_json(base, theirs):
        return ours
    if isinstance(ours, dict) and isinstance(theirs, dict):
        base_obj = base if isinstance(base, dict) else {}
        merged = {}
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            value = merge_values(
                base_obj.get(key, _MISSING),
                ours.get(key, _MISSING),
                theirs.get(key, _MISSING),
                (*path, key),
                conflicts,
                resolve,
            )
            if value is not _MISSING:
                merged[key] = value
        return merged
    resolved = resolve(path, base, ours, theirs) if resolve is not None else _CONFLICT
    if resolved is _CONFLICT:
        conflicts.append(path)
        return ours
    return resolved


def _resolve_session(path: tuple[str, ...], base: Any, ours: Any, theirs: Any) -> Any:
    """Session fields derived from the tasks: combine both sides (the hook recomputes)."""
    if path == ("type",) and isinstance(ours, str) and isinstance(theirs, str):
        if ours not in COMPLEXITIES or theirs not in COMPLEXITIES:
            return _CONFLICT
        return max(ours, theirs, key=COMPLEXITIES.index)  # only ever raised
    if path == ("current_phase",) and ours in PHASES and theirs in PHASES:
        return max(ours, theirs, key=PHASES.index)
    if path in (("progress", "completed_phases"), ("progress", "current_tasks")):
        if isinstance(ours, list) and isinstance(theirs, list):
            merged = _merge_sets(base if isinstance(base, list) else [], ours, theirs)
            if path[1] == "completed_phases":
                return sorted(merged, key=lambda p: PHASES.index(p) if p in PHASES else 99)
            return sorted(merged, key=lambda t: task_sort_key(t) if isinstance(t, str) else ())
    return _CONFLICT


def _merge_sets(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    """Items either side added, minus items either side removed."""
    kept = []
    for item in [*ours, *(i for i in theirs if i not in ours)]:
        in_both = item in ours and item in theirs
        if in_both or item not in base:
            kept.append(item)
    return kept


# --------------------------------------------------------------------------- the hooks


def note_merge_commit(layout: Layout) -> None:
    """pre-merge-commit: remember the parents the merge commit is being made with."""
    head = git.rev_parse(layout.root, "HEAD")
    if head is None:
        return
    # `git merge` names each commit being merged in a GITHEAD_<id> variable.
    merged = sorted(k[len("GITHEAD_") :] for k in os.environ if k.startswith("GITHEAD_"))
    pending = git.git_path(layout.root, PENDING)
    store.confine(pending.parent)  # git's folder
    store.write_text(pending, "\n".join([head, *merged]) + "\n")


def _is_noted_merge(noted: list[str], parents: list[str]) -> bool:
    if len(parents) < 2 or not noted or parents[0] != noted[0]:
        return False
    return len(noted) == 1 or sorted(parents[1:]) == noted[1:]


class Refreshed(NamedTuple):
    session: str
    written: list[str]  # paths relative to the root
    error: str | None
    fresh: list[str] = []  # the session file and views, fresh now (written or not)


class AfterMerge(NamedTuple):
    sessions: list[Refreshed]
    commit: str | None  # the rewritten merge commit
    staged: list[str]  # paths re-rendered but left for the user to commit
    note: str | None


def after_merge(layout: Layout, squash: bool) -> AfterMerge:
    """post-merge: put fresh views (and progress fields) into the merge just made.

    The note of pre-merge-commit goes last, so that a hook cut short (killed) and run
    again by hand (`wfs hook post-merge`) finishes what it started."""
    pending = git.git_path(layout.root, PENDING)
    store.confine(pending.parent)
    found = store.read_optional(pending)
    noted = None if found is None else found.decode("utf-8", "replace").split()
    result = _after_merge(layout, squash, noted or [])
    if noted is not None:
        store.remove(pending)
    return result


def _after_merge(layout: Layout, squash: bool, noted: list[str]) -> AfterMerge:
    if squash:
        touched = _sessions_of(git.changed_in_index(layout.root, WORKFLOW_DIR))
        results = refresh_sessions(layout, touched)
        # What a run cut short wrote is staged too: what differs from the index.
        written = git.differing_from(layout.root, None, [p for r in results for p in r.fresh])
        git.add(layout.root, written)
        return AfterMerge(results, None, written, None)
    parents = git.parents(layout.root, "HEAD")
    if not _is_noted_merge(noted, parents):
        return AfterMerge([], None, [], None)  # a fast-forward, or not this merge
    changed = git.changed_between(layout.root, parents[0], "HEAD", WORKFLOW_DIR)
    results = refresh_sessions(layout, _sessions_of(changed))
    stale = git.differing_from(layout.root, "HEAD", [p for r in results for p in r.fresh])
    if not stale:
        return AfterMerge(results, None, [], None)
    commit = git.replace_in_head(layout.root, stale, "wfs: re-rendered plan views")
    if commit is None:
        git.add(layout.root, stale)
        note = "the merge commit is signed, so wfs left it alone; commit the staged views"
        return AfterMerge(results, None, stale, note)
    git.add(layout.root, stale)
    return AfterMerge(results, commit, [], None)


def _sessions_of(paths: list[str]) -> list[str]:
    found = set()
    for path in paths:
        parts = path.split("/")
        if len(parts) > 2 and parts[0] == WORKFLOW_DIR and parts[1].startswith(SESSION_PREFIX):
            found.add(parts[1])
    return sorted(found)


def refresh_sessions(layout: Layout, sids: list[str]) -> list[Refreshed]:
    """Re-derive each session's progress fields and re-render its views from its JSON.

    A session whose files have uncommitted changes of their own is left alone, so that
    nothing unrelated to the merge ends up in the merge commit. What a refresh cut short
    (killed) wrote is not such a change: it is what this one writes.
    """
    candidates = {
        sid: [layout.relative(layout.session_dir(sid) / n) for n in (SESSION_FILE, *VIEWS)]
        for sid in sids
        if layout.session_file(sid).is_file()  # else the merge removed the session
    }
    # After a merge the index holds the merge result: a difference is the user's own.
    differing = set(
        git.differing_from(layout.root, None, [p for v in candidates.values() for p in v])
    )
    results = []
    for sid, paths in candidates.items():
        folder = layout.session_dir(sid)
        try:
            with store.locked(layout.session_lock(sid), sid):
                store.replay(layout.journal(sid))
                merged, skeletons = _merged_session(layout, sid, paths[0] in differing)
                fresh = refresh_session(merged, TaskIndex(skeletons).tally())
                expected = {paths[0]: jsonio.dumps(fresh) if fresh != merged else None}
                shown = render.expected_views(folder, fresh, skeletons)
                expected.update(
                    zip(paths[1:], (shown[name].encode() for name in VIEWS), strict=True)
                )
                dirty = [
                    p for p in paths if p in differing and _changed_by_hand(layout, p, expected)
                ]
                if dirty:
                    results.append(Refreshed(sid, [], f"uncommitted changes in {', '.join(dirty)}"))
                    continue
                session_file = layout.session_file(sid)
                data = expected[paths[0]]
                files = (
                    []
                    if data is None or not store.differs(session_file, data)
                    else [(session_file, data)]
                )
                views = render.view_files(folder, fresh, skeletons)
                store.write_together(files, layout.journal(sid), views)
        except WfsError as err:
            results.append(Refreshed(sid, [], err.message))
            continue
        written = [layout.relative(path) for path, _ in files + views]
        results.append(Refreshed(sid, written, None, paths))
    return results


def _merged_session(
    layout: Layout, sid: str, from_index: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The session file as the merge left it (in the index, when the working tree's
    differs: a refresh cut short may have written it), and the session's tasks."""
    skeletons = load_skeletons(layout, sid)
    if not from_index:
        return load_session(layout, sid), skeletons
    where = layout.relative(layout.session_file(sid))
    session = jsonio.parse(git.index_file(layout.root, where), where)
    if not isinstance(session, dict):
        raise WfsError(f"{where}: the merge left no JSON object in the index")
    return session, skeletons


def _changed_by_hand(layout: Layout, relative: str, expected: dict[str, bytes | None]) -> bool:
    """Whether the file `relative`, which differs from the index, holds anything else
    than what the refresh writes there (None: the refresh writes nothing there)."""
    data = expected.get(relative)
    return data is None or store.differs(layout.root / relative, data)
