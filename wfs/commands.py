"""What the commands do, as plain functions: shared by the CLI and the MCP server.

Each returns the data that `--json` prints (and, where it is not 0, the exit code),
so `wfs mcp` answers with exactly what the command line prints. The click commands in
wfs/cli.py add only option parsing and the human-readable text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from wfs.errors import WfsError
from wfs.layout import Layout


def status(layout: Layout, requested: str | None, root_option: str | None) -> dict[str, Any]:
    """`wfs status`: the session's summary, or `{"session": None}` when none is active."""
    from wfs.index import answers
    from wfs.query import command_prefix, status_data
    from wfs.sessions import active_ids, current_session, marker_ids

    if requested is None and not active_ids(layout) and not marker_ids(layout):
        return {"session": None}
    from wfs.sessions import session_warnings

    sid = current_session(layout, requested)
    summary = status_data(answers(layout, sid)["summary"], command_prefix(sid, root_option))
    warnings = session_warnings(layout, sid)  # a copy in another place, no session file
    if warnings:
        summary["warnings"] = warnings
    return summary


def unreadable(layout: Layout, requested: str | None) -> list[str]:
    """The task files of the session that cannot be read (file:line:column: reason);
    the commands answer from every other task, then name these (exit 2)."""
    from wfs.index import answers
    from wfs.sessions import current_session

    found = answers(layout, current_session(layout, requested))["summary"].get("unreadable")
    return list(found or [])


def prime(layout: Layout, requested: str | None) -> tuple[str | None, str]:
    """`wfs prime`: (the session, its digest), or (None, how to start) when there is none."""
    from wfs import prime as digests
    from wfs.index import answers
    from wfs.query import command_prefix, status_data
    from wfs.sessions import active_ids, current_session, marker_ids

    if requested is None:
        active = active_ids(layout)
        if len(active) > 1:
            return None, digests.no_session_text(active)
        if not active and not marker_ids(layout):
            return None, digests.no_session_text()
    sid = current_session(layout, requested)
    found = answers(layout, sid)
    prefix = command_prefix(sid)  # no --root: the editor runs the commands in the project
    return sid, digests.digest(status_data(found["summary"], prefix), found["next"], prefix)


def next_tasks(
    layout: Layout, requested: str | None, all_ready: bool, root_option: str | None
) -> dict[str, Any]:
    """`wfs next [--all]`: the next ready task (or all of them), and what holds the rest."""
    from wfs.index import answers
    from wfs.query import command_prefix, next_data
    from wfs.sessions import current_session

    sid = current_session(layout, requested)
    return next_data(sid, answers(layout, sid), all_ready, command_prefix(sid, root_option))


def show_task(layout: Layout, requested: str | None, task_id: str) -> dict[str, Any]:
    """`wfs task show ID`: the task JSON, its derived status, readiness and waits."""
    from wfs.edit import unknown_task
    from wfs.index import answers
    from wfs.layout import check_task_id
    from wfs.query import show_data
    from wfs.sessions import current_session
    from wfs.tasks import read_task

    sid = current_session(layout, requested)
    found = answers(layout, sid)
    if check_task_id(task_id) not in found["status"]:
        raise unknown_task(task_id, found["status"])
    return show_data(sid, found, task_id, read_task(layout, sid, task_id))


def task_status(
    layout: Layout, requested: str | None, task_id: str, status: str
) -> tuple[dict[str, Any], str]:
    """`wfs task status ID STATUS`: (what --json prints, the line printed otherwise)."""
    from wfs.edit import set_status
    from wfs.layout import check_task_id
    from wfs.sessions import current_session

    set_status(layout, current_session(layout, requested), check_task_id(task_id), status)
    return {"task": task_id, "status": status}, f"{task_id}: {status}"


def task_add(
    layout: Layout,
    requested: str | None,
    task_id: str | None = None,
    parent: str | None = None,
    data: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[dict[str, Any], str]:
    """`wfs task add`: (what --json prints, the line printed otherwise). `options`: the
    field options of wfs.edit.task_fields; `data`: the object of `--from`."""
    from wfs.edit import add_task, task_fields
    from wfs.layout import check_task_id
    from wfs.sessions import current_session

    given = {
        "title": None,
        "task_type": None,
        "agent": None,
        "depends": (),
        "requirements": (),
        "acceptance": (),
        "focus": (),
        **options,
    }
    fields = task_fields(data, **given)
    if task_id is not None:
        fields["id"] = check_task_id(task_id)
    if not fields.get("title"):
        raise WfsError("a task needs --title (or a title in --from)")
    created = add_task(layout, current_session(layout, requested), fields, parent=parent)
    return {"task": created}, created["id"]


def plan(
    layout: Layout,
    topic: str | None,
    source: Callable[[], tuple[bytes, str]] | None,
    session_type: str | None,
    replan_id: str | None,
) -> dict[str, Any]:
    """`wfs plan`: a new session for `topic` with the tasks of a plan document, or with
    `replan_id`, that session's tasks added or replaced.

    `source` reads the document: (bytes, the name its problems are reported under).
    """
    from wfs import edit, sessions

    if replan_id and topic:
        raise WfsError("give either TOPIC (a new session) or --session ID (replan it), not both")
    if replan_id:
        if source is None:
            raise WfsError("replanning a session needs --from FILE|-")
        sid = sessions.require_session(layout, replan_id)
        added, replaced = edit.replan(layout, sid, *source())
        return {"session": sid, "added": added, "replaced": replaced}
    if topic is None:
        raise WfsError("missing TOPIC (or --session ID to replan a session)")
    if source is None:
        sid, count = sessions.create_session(layout, topic, session_type), 0
    else:
        sid, count = edit.new_session_from_plan(layout, topic, *source(), session_type)
    return {"session": sid, "path": layout.relative(layout.session_dir(sid)), "tasks": count}


def switch(layout: Layout, value: str) -> dict[str, Any]:
    """`wfs switch ID`: make it the single active session; say which ones were paused."""
    from wfs.sessions import active_ids
    from wfs.sessions import switch as make_active

    before = active_ids(layout)
    sid = make_active(layout, value)
    return {"session": sid, "status": "active", "paused": [s for s in before if s != sid]}


class Validation(NamedTuple):
    data: dict[str, Any]
    problems: list[Any]  # wfs.validate.Problem, for the text output
    exit_code: int


def validate(layout: Layout, sids: list[str], every: bool = False) -> Validation:
    """`wfs validate`: every problem of the sessions; exit 1 when any is an error.

    `every` (`--all`): also the folders that are not one session each, and every copy
    of a session found in several places."""
    from wfs.validate import validate_project, validate_session

    if every:
        problems = validate_project(layout)
    else:
        problems = [p for sid in sids for p in validate_session(layout, sid)]
    errors = sum(1 for p in problems if p.severity == "error")
    data = {
        "sessions": sids,
        "problems": [p._asdict() for p in problems],
        "errors": errors,
        "warnings": len(problems) - errors,
    }
    return Validation(data, problems, 1 if errors else 0)


def dry_run(layout: Layout, runner: Any, task_id: str | None) -> dict[str, Any]:
    """`wfs execute --dry-run [ID]`: the resolved steps of ID (default: the next ready)."""
    from wfs.flow.preview import dry_run as preview
    from wfs.index import load_skeletons
    from wfs.layout import check_task_id
    from wfs.tasks import TaskIndex, read_task

    index = TaskIndex(load_skeletons(layout, runner.sid))
    if task_id is None:
        ready = index.ready()
        if not ready:
            return {"session": runner.sid, "task": None}
        task_id = ready[0]
    if check_task_id(task_id) not in index.by_id:
        from wfs.edit import unknown_task

        raise unknown_task(task_id, index.by_id)
    return preview(runner, read_task(layout, runner.sid, task_id))


def agent_routes(layout: Layout, option: str | None) -> Any:
    """Where agent steps go: `option` (--agent), then WFS_AGENT, then the routes of
    .workflow/config.json."""
    import os

    from wfs.flow.routing import load_routes

    return load_routes(layout, option or os.environ.get("WFS_AGENT") or None)


def runner(
    layout: Layout,
    sid: str,
    agent_option: str | None = None,
    root_option: str | None = None,
    progress: Any = None,
    scope: str = "task",
) -> Any:
    """The engine's runner for a session, as `wfs execute` sets it up."""
    from wfs.flow.engine import Runner
    from wfs.query import command_prefix

    return Runner(
        layout,
        sid,
        agent_routes(layout, agent_option),
        progress=progress,
        command_prefix=command_prefix(sid, root_option),
        scope=scope,
    )


class Execution(NamedTuple):
    data: dict[str, Any]
    exit_code: int
    signum: int | None  # a signal that stopped the run between tasks
    interrupted: bool  # a task was interrupted while a step ran


# `--all` carries on after these.
GOING_ON = ("completed", "blocked")


def execute(
    runner: Any,
    task_id: str | None = None,
    resume_id: str | None = None,
    answer: str | None = None,
    skip: bool = False,
    run_all: bool = False,
    note: Callable[[str], None] = lambda _: None,
) -> Execution:
    """`wfs execute`: run task_id, continue resume_id (with `answer` or `skip`), or run
    the next ready task; with `run_all`, go on until nothing is ready.

    SIGINT, SIGTERM and SIGHUP stop the running step and leave the task resumable.
    `note` gets what reclaiming a stopped task had to do (stale claims, orphans).
    """
    from wfs.flow import engine, signals

    results: list[dict[str, Any]] = []
    with signals.handled():
        if resume_id:
            task, notes = runner.reclaim(resume_id)
            for text in notes:
                note(text)
            results.append(engine.run_task(runner, task, {"skip": skip, "output": answer}))
        elif task_id:
            claimed = runner.claim(task_id)
            assert claimed is not None
            results.append(engine.run_task(runner, claimed))
        while (
            (run_all or not results)
            and (not results or results[-1]["status"] in GOING_ON)
            and signals.pending() is None
        ):
            claimed = runner.claim(None)
            if claimed is None:
                break
            results.append(engine.run_task(runner, claimed))
            if not run_all:
                break
        signum = signals.pending()
    statuses = [r["status"] for r in results]
    interrupted = [r for r in results if r["status"] == "interrupted"]
    if interrupted:
        code, overall = interrupted[0]["exit_code"], "interrupted"
    elif signum is not None:
        code, overall = 128 + signum, "interrupted"
    elif "refused" in statuses:
        code, overall = 2, "refused"
    elif "paused" in statuses:
        code, overall = 3, "paused"
    elif "blocked" in statuses:
        code, overall = 1, "failed"
    else:
        code, overall = 0, "completed" if results else "idle"
    data: dict[str, Any] = {"session": runner.sid, "status": overall, "tasks": results}
    if not results:
        from wfs.index import answers
        from wfs.query import stopped_view

        data["stopped"] = stopped_view(
            answers(runner.layout, runner.sid)["summary"].get("stopped", []),
            runner.command_prefix,
        )
    return Execution(data, code, signum, bool(interrupted))
