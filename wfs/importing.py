"""`wfs import`: a wfs session made from a Maestro-Flow plan (read by wfs.maestro),
validated as a whole and written all or nothing; no other session is touched."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wfs import lifecycle, maestro, sessions
from wfs.edit import problems_of, refuse_problems
from wfs.errors import WfsError
from wfs.formats import canonical
from wfs.layout import Layout
from wfs.maestro import RECORD, Imported
from wfs.rules import localized
from wfs.tasks import Task

_IMPL_ID = re.compile(r"\bIMPL-\d+\b")


def imported_tasks(imported: Imported, root: Path | None) -> list[tuple[str, Task]]:
    """The tasks a Maestro-Flow plan makes, as `wfs import` writes them: in the
    canonical form `wfs migrate` writes (so that the session validates clean), each
    with the Maestro file it comes from. Nothing is lost: every field wfs does not
    know stays where Maestro put it."""
    tasks = []
    for where, task in imported.tasks:
        converted = canonical(task).task
        tasks.append((where, localized(converted, root) if root is not None else converted))
    return tasks


def import_problems(imported: Imported, root: Path) -> list[Any]:
    """The problems of the tasks a Maestro-Flow plan makes, each named by the Maestro
    file the task comes from and the place in it (the tasks are checked as the file
    lays them out, before they are written in the canonical form), with the Maestro id
    of each task it names."""
    source = {new: old for old, new in imported.fields[RECORD]["ids"].items()}
    found = []
    items: list[tuple[str, Any, str | None]] = [
        (where, task, None) for where, task in imported.tasks
    ]
    for problem in problems_of(items, root):
        named = [i for i in dict.fromkeys(_IMPL_ID.findall(problem.message)) if i in source]
        if named:
            ids = ", ".join(f"{i} is {source[i]}" for i in named)
            problem = problem._replace(message=f"{problem.message} ({ids})")
        found.append(problem)
    return found


def import_plan(
    layout: Layout, given: str, new: bool = False, activate: bool | None = None
) -> tuple[Imported, str, bool]:
    """`wfs import PATH`: (the plan as read, the wfs session made of it, whether it was
    made now). Importing a plan again does nothing while its files are unchanged; once
    they changed it is refused, unless `new` (a second session). The session is made
    active when `activate` says so (default: when no session is active); no other
    session is touched either way."""
    imported = maestro.read_plan(layout, given)
    record = imported.fields[RECORD]
    earlier = sessions.imported_sessions(layout).get(record["session"])
    if earlier is not None and not new:
        before = sessions.load_session(layout, earlier).get(RECORD)
        if isinstance(before, dict) and before.get("fingerprint") == record["fingerprint"]:
            return imported, earlier, False
        raise WfsError(
            f"{record['session']} was imported as {earlier}, and its files have changed "
            f"since; `wfs import --new {given}` makes a second session from it as it is now"
        )
    if activate is None:
        activate = not sessions.active_ids(layout)
    return imported, new_session_from_import(layout, imported, activate), True


def new_session_from_import(layout: Layout, imported: Imported, activate: bool = True) -> str:
    """A new session from a Maestro-Flow plan read by wfs.maestro: its tasks are
    validated as a whole first, each named by the Maestro file it comes from, and the
    session is written all or nothing; `activate`: it is made active (else it is
    paused; no other session is touched either way)."""
    fields = dict(imported.fields)
    refuse_problems(import_problems(imported, layout.root), fields[RECORD]["plan_file"])
    plan = fields.pop("plan", None)
    tasks = [task for _, task in imported_tasks(imported, layout.root)]
    return lifecycle.create_session(
        layout, imported.topic, plan=plan, tasks=tasks, extra=fields, activate=activate
    )
