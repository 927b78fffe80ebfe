"""The generated views, TODO_LIST.md and IMPL_PLAN.md (templates/*.md.j2).

Rendering is a pure function of the session and task JSON (no clock, no environment),
so identical JSON always gives byte-identical views. This module gives the templates
the tasks as the views show them; the templates hold the format.

Every file wfs generates opens with a mark (templates/mark.md.j2), and wfs knows its
own files by that mark alone, never by how they look. A view without it (an
IMPL_PLAN.md written by a planning agent, a TODO_LIST.md kept by hand, however close to
wfs's format) is never destroyed: a change of the plan leaves it as it is (the change
is the lines of JSON it changes), and `wfs render` or `wfs doctor --fix` renames it,
byte for byte, to `IMPL_PLAN.authored.md` (or `TODO_LIST.authored.md`) and writes the
generated view, which links to it. Versions of wfs before the mark wrote none: a view
without it that is exactly what they wrote for the session as it is now is wfs's too,
and gains the mark at the next write (no resemblance: the same bytes).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

from wfs import store, templating
from wfs.layout import task_sort_key
from wfs.tasks import (
    Task,
    TaskIndex,
    depends_on,
    obj,
    parent_id,
    session_facts,
    session_topic,
)
from wfs.text import fences_closed, printable

VIEWS = ("TODO_LIST.md", "IMPL_PLAN.md")


def one_line(value: Any) -> str:
    """`value` as text on one printable line."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return printable(" ".join(text.split()))


def _strings(value: Any) -> list[str]:
    return [one_line(v) for v in value if v is not None] if isinstance(value, list) else []


class Entry(SimpleNamespace):
    """One task as the views show it (the templates read its attributes)."""


def entry(
    tid: str,
    task: Task,
    status: str,
    container: bool,
    parent: str | None,
    gap: bool,
    closes: bool = False,
) -> Entry:
    """One task as the views show it (`parent`: set when it is shown under it; `gap`:
    a blank line comes before it; `closes`: it ends its container's subgraph)."""
    title = one_line(task.get("title"))
    return Entry(
        id=tid,
        title=title,
        status=status,
        container=container,
        nested=parent is not None,
        parent=parent,
        depends_on=depends_on(task),
        agent=one_line(obj(task, "meta").get("agent")),
        acceptance=_strings(obj(task, "context").get("acceptance")),
        children=[],
        gap=gap,
        closes=closes,
    )


def _entries(index: TaskIndex) -> list[Entry]:
    """Tasks in display order: each main task followed by its subtasks."""
    by_id: dict[str, Entry] = {}
    for tid in sorted(index.by_id, key=task_sort_key):
        task = index.by_id[tid]
        parent = parent_id(task)
        nested = parent is not None and parent in index.by_id and parent != tid
        by_id[tid] = entry(
            tid,
            task,
            index.effective_status(tid),
            index.is_container(tid),
            parent if nested else None,
            False,
        )
    for shown in by_id.values():
        if shown.nested:
            by_id[shown.parent].children.append(shown)
    # Main tasks in id order, each immediately followed by its subtasks.
    entries: list[Entry] = []
    for shown in by_id.values():
        if shown.nested:
            continue
        shown.gap = bool(entries)
        entries.append(shown)
        entries.extend(shown.children)
        if shown.container:
            (shown.children or [shown])[-1].closes = True
    return entries


# ------------------------------------------------------------------ the views, by part
# Each view is a sequence of parts: a head, the parts that show tasks, in display
# order, and a tail that depends only on counts. templates/views.md.j2 holds one macro
# per part; TODO_LIST.md.j2 and IMPL_PLAN.md.j2 call them with every task for a full
# render, and a change to a few tasks (wfs/delta.py) calls the same ones, through
# `piece`, with the tasks whose parts it replaces.
# Both are the same bytes by construction (and tests compare them after random edits).
# What the parts are cut by (`marks`) is read from what the macros write, not written
# again here.

PARTS = "views.md.j2"


def piece(name: str, *args: Any) -> str:
    """The part `name` (a macro of templates/views.md.j2) of a view."""
    return str(getattr(templating.macros(PARTS), name)(*args))


# Placeholders for the values of a part, to read its fixed text around them.
_TEXT = "\ue000text\ue000"
_ID = "\ue000id\ue000"


def _sample(**fields: Any) -> Entry:
    """A task as the views show it, with placeholders for its values."""
    shown = {"id": _ID, "title": _TEXT, "status": "pending", "container": False, "nested": False}
    shown |= {"parent": None, "depends_on": [], "agent": "", "acceptance": [], "children": []}
    return Entry(**(shown | {"gap": False, "closes": False} | fields))


class Marks(NamedTuple):
    """The fixed text that opens or closes a part, by which a view is cut into its parts."""

    legend: str  # TODO_LIST.md: opens what follows the last task
    overview: str  # IMPL_PLAN.md: opens what follows the head
    graph: str  # IMPL_PLAN.md: opens the graph, after the task table
    criteria: str  # IMPL_PLAN.md: opens the acceptance criteria, after the graph
    node_end: str  # ends a node's line in the graph
    subgraph_end: str  # ends a container's subgraph


def _opening(text: str) -> str:
    """`text` up to the end of its first line that is not blank."""
    lines = text.splitlines(keepends=True)
    count = next(n for n, line in enumerate(lines, start=1) if line.strip())
    return "".join(lines[:count])


@cache
def marks() -> Marks:
    """The Marks, as the templates write them."""
    node_line = piece("plan_nodes", [_sample()])
    container = piece("plan_nodes", [_sample(container=True)])
    return Marks(
        legend=_opening(piece("todo_tail", _TEXT, False, False, False)),
        overview=_opening(piece("plan_body", _TEXT, [], False)),
        graph=piece("plan_graph"),
        criteria=piece("plan_criteria_head"),
        node_end=node_line[node_line.rindex(_TEXT) + len(_TEXT) :],
        subgraph_end=piece("plan_nodes", [_sample(container=True, closes=True)])[len(container) :],
    )


def view_facts(session: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """The session's part of the views, each value on one printable line."""
    return {
        "session_id": one_line(session.get("session_id")),
        "topic": one_line(session_topic(session)) or one_line(session.get("session_id")),
        "type": one_line(facts["type"]),
        "phase": one_line(facts["phase"]),
        "status": one_line(session.get("status")),  # empty: the views leave it out
    }


def render_views(
    session: dict[str, Any],
    tasks: list[Task],
    index: TaskIndex | None = None,
    kept: dict[str, list[str]] | None = None,
    marked: bool = True,
) -> dict[str, str]:
    """View file name -> text (`index`: the TaskIndex of `tasks`, when already built;
    `kept`: view name -> the authored copies kept beside it, which it links to;
    `marked` false: as versions before the mark wrote them)."""
    index = index or TaskIndex(tasks)
    facts = view_facts(session, session_facts(session, index.tally()))
    entries = _entries(index)
    leaves = [e for e in entries if not e.container]
    plan = obj(session, "plan")
    kept = kept or {}
    todo = templating.template("TODO_LIST.md.j2").render(
        topic=facts["topic"],
        session_id=facts["session_id"],
        kept=kept.get("TODO_LIST.md", []),
        marked=marked,
        entries=entries,
        has_active=any(e.status == "active" for e in leaves),
        has_blocked=any(e.status == "blocked" for e in leaves),
    )
    impl = templating.template("IMPL_PLAN.md.j2").render(
        facts=facts,
        done=sum(1 for e in leaves if e.status == "completed"),
        leaves=len(leaves),
        kept=kept.get("IMPL_PLAN.md", []),
        marked=marked,
        overview=fences_closed(printable(str(plan.get("overview") or "").strip())),
        requirements=_strings(plan.get("requirements")),
        entries=entries,
        known=index.by_id,
    )
    return {"TODO_LIST.md": todo, "IMPL_PLAN.md": impl}


AUTHORED = ".authored"


def piece_of(template: str, name: str, *args: Any) -> str:
    """The macro `name` of `template` (a file of templates/), rendered."""
    return str(getattr(templating.macros(template), name)(*args))


@cache
def mark_opening() -> str:
    """What the mark of every file wfs generates starts with (templates/mark.md.j2):
    whatever the version of wfs and whatever the mark goes on to say."""
    line = piece_of("mark.md.j2", "mark", _TEXT)
    return line[: line.index(_TEXT)]


def is_marked(text: str | None) -> bool:
    """Whether `text` opens with the mark wfs writes in every file it generates."""
    return text is not None and text.startswith(mark_opening())


def authored_views(
    session_dir: Path, session: dict[str, Any], tasks: list[Task], index: TaskIndex | None = None
) -> list[str]:
    """The views of a session folder that wfs did not write, which it keeps aside before
    it writes its own: any view without the mark, unless it is exactly what earlier
    versions (which wrote no mark) wrote for the session as it is now."""
    unmarked = {}
    for name in VIEWS:
        path = session_dir / name
        if path.is_file():
            text = read_view(path)
            if not is_marked(text):
                unmarked[name] = text
    if not unmarked:
        return []
    earlier = legacy_views(session_dir, session, tasks, index)
    return [name for name, text in unmarked.items() if text != earlier[name]]


def legacy_views(
    session_dir: Path, session: dict[str, Any], tasks: list[Task], index: TaskIndex | None = None
) -> dict[str, str]:
    """The views as versions of wfs before the mark wrote them for the session as it is
    now (linking to the authored copies kept so far)."""
    return render_views(session, tasks, index, kept_views(session_dir), marked=False)


def authored_name(name: str, n: int = 1) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}{AUTHORED}{'' if n == 1 else f'-{n}'}{dot}{ext}"


def kept_views(session_dir: Path) -> dict[str, list[str]]:
    """View name -> the authored copies kept beside it, in the order they were kept."""
    return {name: copies for name in VIEWS if (copies := kept_copies(session_dir, name))}


def keep_authored(folder: Path, names: list[str]) -> list[str]:
    """Rename each file `names` of `folder` to its next free `.authored` name, byte for
    byte; return the new names."""
    moved = []
    for name in names:
        copy = free_authored_name(folder, name)
        store.move(folder / name, folder / copy)
        moved.append(copy)
    return moved


def free_authored_name(folder: Path, name: str) -> str:
    """The name the file `name` of `folder` is kept under when wfs keeps it aside."""
    n = 1
    while os.path.lexists(folder / authored_name(name, n)):
        n += 1
    return authored_name(name, n)


def kept_copies(folder: Path, name: str) -> list[str]:
    """The authored copies of the file `name` kept in `folder`, in the order they were
    kept."""
    found = []
    n = 1
    while (folder / authored_name(name, n)).exists():
        found.append(authored_name(name, n))
        n += 1
    return found


def keep_unmarked(path: Path) -> list[str]:
    """Keep the file at `path` aside when wfs did not write it (it has no mark); return
    the names of every copy kept beside it, this one included (for the links)."""
    if path.is_file() and not is_marked(read_view(path)):
        keep_authored(path.parent, [path.name])
    return kept_copies(path.parent, path.name)


def expected_views(
    session_dir: Path, session: dict[str, Any], tasks: list[Task], index: TaskIndex | None = None
) -> dict[str, str]:
    """What the views of a session folder should read (linking to its authored copies,
    including those `write_views` is about to keep)."""
    kept = kept_views(session_dir)
    for name in authored_views(session_dir, session, tasks, index):
        kept.setdefault(name, []).append(free_authored_name(session_dir, name))
    return render_views(session, tasks, index, kept)


def stale_views(
    session_dir: Path, session: dict[str, Any], tasks: list[Task], index: TaskIndex | None = None
) -> list[str]:
    """The views that a render would change: missing, stale, or not wfs's. A view that
    is exactly what an earlier version wrote for the session as it is now is not stale
    (it gains the mark at the next write)."""
    expected = expected_views(session_dir, session, tasks, index)
    texts = {name: read_view(session_dir / name) for name in VIEWS}
    stale = [name for name in VIEWS if texts[name] != expected[name]]
    if any(texts[name] is not None and not is_marked(texts[name]) for name in stale):
        earlier = legacy_views(session_dir, session, tasks, index)
        stale = [name for name in stale if texts[name] != earlier[name]]
    return stale


def write_views(
    session_dir: Path,
    session: dict[str, Any],
    tasks: list[Task],
    index: TaskIndex | None = None,
    rendered: dict[str, Any] | None = None,
    before: tuple[dict[str, Any], list[Task]] | None = None,
    take_over: bool = False,
) -> list[str]:
    """Write the views that changed; return their names. See view_files for the
    arguments."""
    files = view_files(session_dir, session, tasks, index, rendered, before, take_over)
    store.write_each(files)
    return [path.name for path, _ in files]


def view_files(
    session_dir: Path,
    session: dict[str, Any],
    tasks: list[Task],
    index: TaskIndex | None = None,
    rendered: dict[str, Any] | None = None,
    before: tuple[dict[str, Any], list[Task]] | None = None,
    take_over: bool = False,
) -> list[tuple[Path, bytes]]:
    """The views that changed, as (path, bytes) for a write to write along with the
    JSON they show (store.write_together).

    An authored view (one wfs did not write) is left where it is, as it is: a change of
    the plan is then the few lines of JSON it changes, not a view written over a page
    of someone's text. `take_over` (what `wfs render` and `wfs doctor --fix` ask) keeps
    it aside first, byte for byte (`IMPL_PLAN.authored.md`), and writes the view, which
    links to it.

    `rendered`, when given, receives the bytes of both views and the authored copies
    they link to (what wfs/delta.py checks the views by). `before`: the session and
    its tasks before the change this write follows, which the views on disk show when
    wfs wrote them (default: as they are now)."""
    shown = (session, tasks, index) if before is None else (*before, None)
    authored = authored_views(session_dir, *shown)
    if take_over:
        keep_authored(session_dir, authored)
        authored = []
    kept = kept_views(session_dir)
    views = {
        name: text.encode("utf-8")
        for name, text in render_views(session, tasks, index, kept).items()
    }
    if rendered is not None:
        rendered.update(views=views, kept=kept)
    return [
        (session_dir / name, data)
        for name, data in views.items()
        if name not in authored and store.differs(session_dir / name, data)
    ]


def read_view(path: Path) -> str | None:
    """The text of a view on disk; None when it is not a regular UTF-8 file (a FIFO or a
    symlink to a device, which a clone can carry, is never read)."""
    raw = store.read_cache_file(path)
    try:
        text = raw.decode("utf-8") if raw is not None else None
    except UnicodeDecodeError:
        return None
    # Line ends read as text files are (universal newlines): `\r\n` and `\r` are `\n`.
    return None if text is None else text.replace("\r\n", "\n").replace("\r", "\n")
