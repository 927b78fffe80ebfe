"""Checks and repairs: validate, render (or check) the views, doctor, and a dry run
of what execute would do."""

from __future__ import annotations

from typing import Any, NamedTuple

from wfs import maestro, store
from wfs.errors import WfsError
from wfs.index import load_skeletons
from wfs.layout import Layout, check_task_id
from wfs.plans import plan_rows
from wfs.sessions import (
    current_session,
    load_session,
    session_ids,
)
from wfs.tasks import TaskIndex, read_task, unknown_task


def chosen_sessions(layout: Layout, requested: str | None, every: bool) -> list[str]:
    """The sessions `--all` names (every one), else the one `requested` or active."""
    return session_ids(layout) if every else [current_session(layout, requested)]


def validated_sessions(layout: Layout, requested: str | None, every: bool) -> list[str]:
    """The sessions `wfs validate` checks: as `chosen_sessions`, but none (rather than
    "no active session") in a project whose only plans are Maestro-Flow sessions, which
    `validate` checks instead."""
    if not every and requested is None and not session_ids(layout):
        if maestro.find_plans(layout):
            return []
    return chosen_sessions(layout, requested, every)


class Validation(NamedTuple):
    data: dict[str, Any]
    problems: list[Any]  # wfs.validate.Problem, for the text output
    exit_code: int


def validate(layout: Layout, sids: list[str], every: bool = False) -> Validation:
    """`wfs validate`: every problem of the sessions; exit 1 when any is an error.

    `every` (`--all`): also the folders that are not one session each, and every copy
    of a session found in several places."""
    from wfs.validate import (  # deferred: only validation loads the rules across files
        validate_project,
        validate_session,
    )

    if every:
        problems = validate_project(layout)
    else:
        problems = [p for sid in sids for p in validate_session(layout, sid)]
    found = plan_rows(layout)
    if every or not sids:
        problems += _maestro_problems(layout, [row for row in found if not row["imported_as"]])
    errors = sum(1 for p in problems if p.severity == "error")
    data: dict[str, Any] = {
        "sessions": sids,
        "problems": [p._asdict() for p in problems],
        "errors": errors,
        "warnings": len(problems) - errors,
    }
    if found:
        data["maestro"] = found
    return Validation(data, problems, 1 if errors else 0)


def _maestro_problems(layout: Layout, waiting: list[dict[str, Any]]) -> list[Any]:
    """What would keep each Maestro-Flow session from being imported: the errors of the
    tasks it makes (named by its files), or why it cannot be read as a plan."""
    if not waiting:
        return []
    from wfs.importing import import_problems  # deferred: only a Maestro project loads it
    from wfs.rules import Problem  # deferred: with the rules, which edit loads anyway

    problems: list[Any] = []
    for row in waiting:
        try:
            imported = maestro.read_plan(layout, row["path"])
        except WfsError as err:
            problems.append(Problem(row["path"], "import", err.message))
            continue
        problems += [p for p in import_problems(imported, layout.root) if p.severity == "error"]
    return problems


def dry_run(layout: Layout, runner: Any, task_id: str | None) -> dict[str, Any]:
    """`wfs execute --dry-run [ID]`: the resolved steps of ID (default: the next ready)."""
    from wfs.flow.preview import dry_run as preview  # deferred: only a dry run loads the engine

    index = TaskIndex(load_skeletons(layout, runner.sid))
    if task_id is None:
        ready = index.ready()
        if not ready:
            return {"session": runner.sid, "task": None}
        task_id = ready[0]
    if check_task_id(task_id) not in index.by_id:
        raise unknown_task(task_id, index.by_id)
    return preview(runner.context, read_task(layout, runner.sid, task_id))


def dry_run_all(layout: Layout, runner: Any) -> dict[str, Any]:
    """`wfs execute --all --dry-run`: the resolved steps of every task the run would
    run, in its order (wfs.flow.session_run.run_order)."""
    from wfs.flow.preview import dry_run as preview  # deferred: only a dry run loads the engine
    from wfs.flow.session_run import run_order  # deferred: as above

    order = run_order(runner)
    tasks = [preview(runner.context, read_task(layout, runner.sid, tid)) for tid in order]
    return {"session": runner.sid, "tasks": tasks}


class Outcome(NamedTuple):
    data: dict[str, Any]
    exit_code: int


def render(layout: Layout, sids: list[str], every: bool, check: bool) -> Outcome:
    """`wfs render [--check]`: write the views of the sessions that are stale, under
    each session's lock; with `check`, change nothing and name the stale ones and the
    changes left half done (exit 1 if any)."""
    from wfs import render as views  # deferred: only a render loads the views

    which: dict[str, Any] = {"sessions": sids} if every else {"session": sids[0]}
    # Views are rendered from the whole plan: a task file that cannot be read stops the
    # writing, and leaves its session unchecked (the others are checked).
    broken = {
        sid: [t["unreadable"] for t in load_skeletons(layout, sid) if t.get("unreadable")]
        for sid in sids
    }
    unreadable = [reason for reasons in broken.values() for reason in reasons]
    if unreadable and not check:
        return Outcome({**which, "written": [], "unreadable": unreadable}, 2)
    paths: list[str] = []
    interrupted: list[str] = []  # sessions with a half-applied change (a pending journal)
    for sid in sids:
        if broken[sid]:
            continue
        session_dir = layout.session_dir(sid)
        if check:
            if layout.journal(sid).exists():
                interrupted.append(layout.relative(layout.journal(sid)))
            names = views.stale_views(
                session_dir, load_session(layout, sid), load_skeletons(layout, sid)
            )
        else:
            with store.locked(layout.session_lock(sid), sid):
                store.replay(layout.journal(sid))
                names = views.write_views(
                    session_dir,
                    load_session(layout, sid),
                    load_skeletons(layout, sid),
                    take_over=True,
                )
        paths += [layout.relative(session_dir / name) for name in names]
    if check:
        data = {**which, "stale": paths, "interrupted": interrupted}
        if unreadable:
            data["unreadable"] = unreadable
        return Outcome(data, 2 if unreadable else 1 if paths or interrupted else 0)
    return Outcome({**which, "written": paths}, 0)


def doctor(layout: Layout, fix: bool) -> Outcome:
    """`wfs doctor [--fix]`: a row per finding and whether it was repaired; exit 1 when
    any is left."""
    from wfs.doctor import doctor as examine  # deferred: only `wfs doctor` loads it

    rows = [
        {
            "where": f.where,
            "problem": f.problem,
            "action": f.action,
            "fixable": f.repair is not None,
            "fixed": fixed,
        }
        for f, fixed in examine(layout, fix)
    ]
    return Outcome({"findings": rows}, 1 if any(not row["fixed"] for row in rows) else 0)
