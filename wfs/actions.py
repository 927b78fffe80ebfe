"""What the commands do, as plain functions: shared by the CLI and the MCP server.

Each returns the data that `--json` prints (and, where it is not 0, the exit code),
so `wfs mcp` answers with exactly what the command line prints. The click commands
(wfs/commands/) add only option parsing and the human-readable text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from wfs import jsonio, leases, maestro, store
from wfs import prime as digests
from wfs.command_forms import classify
from wfs.errors import WfsError, os_error_place
from wfs.formats import canonical, dependencies, parent_task
from wfs.index import MAPS, answers, load_skeletons
from wfs.layout import Layout, check_task_id, check_topic, task_sort_key
from wfs.query import command_prefix, next_data, one_line, show_data, status_data
from wfs.sessions import (
    active_ids,
    current_session,
    imported_sessions,
    load_session,
    maestro_sessions,
    marker_ids,
    require_session,
    session_folders,
    session_ids,
    session_warnings,
    shown_status,
    topic_session,
)
from wfs.tasks import TaskIndex, obj, read_task, task_row, unknown_task


def status(layout: Layout, requested: str | None, root_option: str | None) -> dict[str, Any]:
    """`wfs status`: the session's summary, or `{"session": None}` when none is active."""
    if requested is None and not active_ids(layout) and not marker_ids(layout):
        found = maestro_sessions(layout)
        return {"session": None, "maestro": found} if found else {"session": None}

    sid = current_session(layout, requested)
    prefix = command_prefix(sid, root_option)
    summary = status_data(_summary(layout, sid), prefix, task_path(layout, sid))
    holders = leases.status_holders(layout, sid)  # no git runs without a claims remote
    if holders:
        summary["claims"] = [leases.shown(lease) for lease in holders]
    if summary.get("stuck"):
        summary["stuck"] = explain_stuck(layout, sid, summary["stuck"])
    warnings = session_warnings(layout, sid)  # a copy in another place, no session file
    if warnings:
        summary["warnings"] = warnings
    waiting = [row for row in maestro_sessions(layout) if not row["imported_as"]]
    if waiting:
        summary["maestro"] = waiting
    return summary


def prime(layout: Layout, requested: str | None) -> tuple[str | None, str]:
    """`wfs prime`: (the session, its digest), or (None, how to start) when there is none."""
    if requested is None:
        active = active_ids(layout)
        if len(active) > 1:
            return None, digests.no_session_text(active)
        if not active and not marker_ids(layout):
            return None, digests.no_session_text()
    sid = current_session(layout, requested)
    found = answers(layout, sid)
    prefix = command_prefix(sid)  # no --root: the editor runs the commands in the project
    summary = _summary(layout, sid, found)
    return sid, digests.digest(status_data(summary, prefix), found["next"], prefix)


def _summary(layout: Layout, sid: str, found: dict[str, Any] | None = None) -> dict[str, Any]:
    """The session's summary as the index holds it (`found`: its answers, when read
    already), with the status derived when the session file has none (it depends on
    the markers, which the index does not read)."""
    summary: dict[str, Any] = (found or answers(layout, sid))["summary"]
    if not isinstance(summary.get("status"), str) or not summary["status"].strip():
        summary = {**summary, "status": shown_status(layout, sid, load_session(layout, sid))}
    return summary


def next_tasks(
    layout: Layout, requested: str | None, all_ready: bool, root_option: str | None
) -> tuple[dict[str, Any], list[str]]:
    """`wfs next [--all]`: the next ready task (or all of them), and what holds the rest;
    then the task files that cannot be read (file:line:column: reason), which the
    command names after answering from every other task (exit 2)."""
    sid = current_session(layout, requested)
    found = answers(layout, sid)
    prefix = command_prefix(sid, root_option)
    data = next_data(sid, found, all_ready, prefix, task_path(layout, sid))
    if data["stuck"]:
        data["stuck"] = explain_stuck(layout, sid, data["stuck"])
    return data, list(found["summary"].get("unreadable") or [])


def explain_stuck(layout: Layout, sid: str, stuck: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`stuck` (wfs.index.stuck_tasks) with each invalid task waited on explained by
    the first error `validate` reports in it, as the index keeps it."""
    return [
        {k: v for k, v in entry.items() if k != "error"}
        | {"reason": validate_line(layout, sid, entry["on"], entry["error"])}
        if entry.get("error")
        else entry
        for entry in stuck
    ]


def task_path(layout: Layout, sid: str) -> Callable[[str], str]:
    """The path of a task's file in session `sid`, relative to the project root."""
    return lambda tid: layout.relative(layout.task_file(sid, tid))


def validate_line(layout: Layout, sid: str, tid: str, error: str) -> str:
    """An error the index keeps for task `tid` (`#/pointer: rule: message`), as
    `validate` prints it: after the task file's path."""
    return task_path(layout, sid)(tid) + error


def show_task(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task show ID --json`: the task JSON, its derived status, readiness and
    waits; then the task files that cannot be read (as `next_tasks`)."""
    _, _, data, unreadable = _shown(layout, requested, task_id)
    return data, unreadable


def _shown(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[str, dict[str, Any], dict[str, Any], list[str]]:
    sid = current_session(layout, requested)
    found = answers(layout, sid, MAPS)  # no ready rows: one task is shown
    if check_task_id(task_id) not in found["status"]:
        raise unknown_task(task_id, found["status"])
    data = show_data(sid, found, task_id, read_task(layout, sid, task_id))
    return sid, found, data, list(found["summary"].get("unreadable") or [])


def task_card(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task show ID` for a person: what wfs.query.show_lines shows (every
    value one line of text from the file, or a list of them); then the task files that
    cannot be read (as `next_tasks`)."""
    from wfs.flow.work import Uninterpretable, task_steps  # deferred: only this text reads steps

    sid, found, data, unreadable = _shown(layout, requested, task_id)
    task, statuses = data["task"], found["status"]
    seed = canonical(task).task
    meta, context, execution = obj(seed, "meta"), obj(seed, "context"), obj(seed, "execution")
    invalid = {s["id"]: s for s in found["summary"]["stopped"] if s["state"] == "invalid"}

    def invalid_reason(tid: str) -> str:
        """Why `execute` refuses task `tid`: the first error, as the index keeps it."""
        entry = invalid[tid]
        error = entry.get("error")
        return validate_line(layout, sid, tid, error) if error else entry["reason"]

    def dependency(tid: str) -> dict[str, str]:
        if tid not in statuses:
            return {"id": tid, "status": "does not exist"}
        return {"id": tid, "status": statuses[tid] + (", invalid" if tid in invalid else "")}

    def waits_on(tid: str) -> str:
        if tid not in statuses:
            return f"waits on {one_line(tid)}, which does not exist"
        if tid in invalid:
            return f"waits on {tid}, which is invalid: {one_line(invalid_reason(tid), 300)}"
        return f"waits on {tid} ({statuses[tid]})"

    status = data["status"]
    path = layout.task_file(sid, task_id)
    why: list[str] = []
    if status == "pending" and not data["children"]:
        if task_id in invalid:
            why.append(f"invalid: {one_line(invalid[task_id]['reason'], 300)}")
            if invalid[task_id].get("error"):
                why.append(f"first: {one_line(invalid_reason(task_id), 300)}")
        why += [waits_on(tid) for tid in data["waiting_on"]]
    elif status == "blocked" and not data["children"]:
        why.append(f"blocked: {one_line(execution.get('blocked_reason') or 'no reason recorded')}")
    elif status == "active" and execution.get("claimed_by"):
        why.append(f"claimed by {one_line(execution['claimed_by'])}")
    elif status == "active" and not data["children"]:
        why.append(f"paused: {one_line(execution.get('paused_reason') or 'paused')}")
    steps: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    steps_error = None
    try:
        plan = task_steps(task)
    except Uninterpretable as err:
        plan, steps_error = [], one_line(f"{layout.relative(path)}{err.message}", 300)
    for step in plan:
        row = {
            "key": step.key,
            "name": one_line(step.name),
            "parts": [
                {"kind": KIND_NAMES.get(c.kind, c.kind), "text": one_line(c.text, 300)}
                for c in map(classify, step.parts)
            ]
            or [{"kind": "agent", "text": one_line(_step_words(step.spec), 300)}],
            "checks": [
                f"{one_line(c.command, 300)} (must {'fail' if c.must_fail else 'pass'})"
                for c in step.checks
            ],
        }
        (checks if step.key.startswith("acceptance/") else steps).append(row)
    card = {
        "id": one_line(task_id),
        "title": one_line(seed.get("title") or "(no title)"),
        "status": status,
        "ready": data["ready"],
        "why": why,
        "type": one_line(meta.get("type") or "-"),
        "agent": one_line(meta.get("agent") or "-"),
        "parent": one_line(parent_task(task) or ""),
        "children": [{"id": c, "status": statuses.get(c, "?")} for c in data["children"]],
        "dependencies": [dependency(one_line(d)) for d in dependencies(task)],
        "focus_paths": _lines(context.get("focus_paths")),
        "acceptance": _lines(context.get("acceptance")),
        "steps": steps,
        "checks": checks,
        "steps_error": steps_error,
    }
    return card, unreadable


# How `task show` names the kinds of steps (wfs.command_forms.Command.kind).
KIND_NAMES = {"read": "Read", "glob": "Glob", "grep": "Grep"}


def _step_words(spec: dict[str, Any]) -> str:
    """What an agent step asks, in its author's words."""
    for field in ("description", "action", "task_description", "title", "step"):
        value = spec.get(field)
        if isinstance(value, str) and value.strip():
            return value
    return "(no description)"


def _lines(value: Any) -> list[str]:
    """A list of texts from a file (a single text counts as one), each on one line."""
    items = value if isinstance(value, list) else [value] if value else []
    return [
        one_line(item if isinstance(item, str) else jsonio.dumps(item).decode().strip(), 300)
        for item in items
    ]


def task_status(
    layout: Layout, requested: str | None, task_id: str, status: str
) -> tuple[dict[str, Any], str]:
    """`wfs task status ID STATUS`: (what --json prints, the line printed otherwise)."""
    from wfs.edit import set_status  # deferred: only a write loads the writers

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
    from wfs.edit import add_task, task_fields  # deferred: only a write loads the writers

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


def init(layout: Layout, git: bool) -> tuple[dict[str, Any], Any]:
    """`wfs init`: create .workflow/ and, with `git`, set up merging the plan files;
    (what --json prints, the wfs.merge.GitSetup or None)."""
    from wfs.lifecycle import ignores_markers  # deferred: only a change of session loads it
    from wfs.lifecycle import init as create  # deferred: only a change of session loads it

    ignored = ignores_markers(layout)
    setup = None
    try:
        created = create(layout)
        if git:
            from wfs.merge import setup_git  # deferred: only git integration loads it

            setup = setup_git(layout)
    except OSError as err:
        # Each of its steps is atomic, not the whole: say so, never "nothing was changed".
        raise WfsError(
            f"{os_error_place(err, layout.root)}; wfs init stopped part way (what it set "
            "up before this stays): fix this and run `wfs init` again to finish"
        ) from None
    data = {
        "root": str(layout.root),
        "workflow": layout.relative(layout.workflow),
        "created": created,
        # `.active-*` markers are out of commits: "added" by this run, or "kept"
        # (already), or "no" (a .gitignore that is not wfs's, left alone).
        "markers_ignored": "kept" if ignored else "added" if ignores_markers(layout) else "no",
        "git": None if setup is None else setup._asdict(),
    }
    return data, setup


def require_project(layout: Layout) -> None:
    """Refuse to plan where no `.workflow/` is (here or above): `wfs plan` in a subfolder
    must not start a second project by accident."""
    if layout.workflow.is_dir():
        return
    from wfs import git  # deferred: only this error path asks git

    where = layout.root
    top = None
    found = git.run(where, "rev-parse", "--show-toplevel") if git.is_work_tree(where) else None
    if found is not None and found.code == 0:
        top = Path(found.out.decode("utf-8", "replace").strip()).resolve()
    init = (
        "`wfs init`"
        if top is None or top == where
        else f"`wfs init` in {top} (the top of this git work tree)"
    )
    raise WfsError(f"no .workflow/ in {where} or above; run {init} first (or `wfs plan --here`)")


def plan(
    layout: Layout,
    topic: str | None,
    source: Callable[[], tuple[bytes, str]] | None,
    session_type: str | None,
    replan_id: str | None,
    new: bool = False,
) -> dict[str, Any]:
    """`wfs plan`: a new session for `topic` with the tasks of a plan document, or with
    `replan_id`, that session's tasks added or replaced. A topic whose session exists
    updates it as `replan_id` would, unless `new` (a second session).

    `source` reads the document: (bytes, the name its problems are reported under).
    `existing` in the answer names the topic's session when it existed before, and
    `updated` says whether this call added its tasks to it.
    """
    from wfs import edit, lifecycle  # deferred: only a write loads the writers

    if replan_id and topic:
        raise WfsError("give either TOPIC (a new session) or --session ID (replan it), not both")
    if replan_id:
        if source is None:
            raise WfsError("replanning a session needs --from FILE|-")
        sid = require_session(layout, replan_id)
        added, replaced = edit.replan(layout, sid, *source())
        return {"session": sid, "added": added, "replaced": replaced}
    if topic is None:
        raise WfsError("missing TOPIC (or --session ID to replan a session)")
    existing = topic_session(layout, topic)
    if existing and not new:
        if source is None:
            raise WfsError(
                f"session {existing} exists for this topic: give a plan (--from FILE) to "
                f"update it, `wfs switch {existing}` to work on it, or --new for a second one"
            )
        added, replaced = edit.replan(layout, existing, *source())
        return _planned(layout, existing, added + replaced, existing, added, replaced)
    if source is None:
        sid, count = lifecycle.create_session(layout, topic, session_type), 0
    else:
        sid, count = edit.new_session_from_plan(layout, topic, *source(), session_type)
    return _planned(layout, sid, count, existing)


def _planned(
    layout: Layout,
    sid: str,
    count: int,
    existing: str | None,
    added: int | None = None,
    replaced: int | None = None,
) -> dict[str, Any]:
    """What `wfs plan` answers: the session, its path, how many tasks the plan had, the
    topic's session that existed before (or None), and whether it was updated."""
    data: dict[str, Any] = {
        "session": sid,
        "path": layout.relative(layout.session_dir(sid)),
        "tasks": count,
        "existing": existing,
        "updated": existing == sid,
    }
    if added is not None:
        data.update(added=added, replaced=replaced)
    return data


def planning_request(topic: str | None, document: Callable[[], tuple[bytes, str]] | None) -> Any:
    """What `wfs plan` asks the agent to plan (a wfs.planning.Request): TOPIC, or the
    requirements document (whose first heading, else its file name, is the topic when
    no TOPIC is given)."""
    from wfs.planning import Request  # deferred: only planning with an agent loads it

    if document is None:
        if topic is None:
            raise WfsError("missing TOPIC (or --from-doc FILE.md)")
        check_topic(topic)
        return Request(topic)
    raw, name = document()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise WfsError(f"{name}: not UTF-8 text (byte {err.start})") from None
    if topic is None:
        heading = next(
            (line.lstrip("#").strip() for line in text.splitlines() if line.startswith("# ")),
            "",
        )
        topic = heading or Path(name).stem
    check_topic(topic)
    return Request(topic, text, name)


def plan_brief(layout: Layout, request: Any, new: bool) -> str:
    """The planning brief `wfs plan` hands the agent (`--dry-run` prints it)."""
    from wfs import planning  # deferred: only planning with an agent loads it

    check_topic(request.topic)
    existing = None if new else topic_session(layout, request.topic)
    return planning.plan_brief(layout, request, existing)


def plan_with_agent(
    layout: Layout,
    request: Any,
    command: str,
    session_type: str | None,
    new: bool,
    rounds: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """`wfs plan TOPIC` with the planning agent `command`: its plan, validated and
    written as `plan` writes a plan document, or nothing (wfs.planning.PlanningFailed).
    The answer is `plan`'s, with the rounds it took."""
    from wfs import edit, planning  # deferred: only planning with an agent loads it

    brief = plan_brief(layout, request, new)
    existing = topic_session(layout, request.topic)

    def accept(raw: bytes, where: str) -> dict[str, Any]:
        # The agent may have made the topic's session itself (`wfs plan TOPIC --from`):
        # its plan updates that session, never a second one beside it.
        made = existing or (None if new else topic_session(layout, request.topic))
        if made and not new:
            added, replaced = edit.replan(layout, made, raw, where)
            return _planned(layout, made, added + replaced, existing, added, replaced)
        sid, count = edit.new_session_from_plan(layout, request.topic, raw, where, session_type)
        return _planned(layout, sid, count, existing)

    data, used = planning.converse(
        layout,
        command,
        brief,
        accept,
        what="plan",
        name="plan.json",
        rounds=rounds,
        progress=progress,
    )
    return {**data, "rounds": used}


def expand_brief(layout: Layout, requested: str | None, task_id: str) -> tuple[str, str, str]:
    """(session, task, the brief `wfs task expand` hands the planning agent)."""
    from wfs import planning  # deferred: only planning with an agent loads it

    sid = current_session(layout, requested)
    tid = check_task_id(task_id)
    skeletons = load_skeletons(layout, sid)
    ids = [str(t.get("id")) for t in skeletons]
    if tid not in ids:
        raise unknown_task(tid, ids)
    if any(i.startswith(f"{tid}.") for i in ids):
        raise WfsError(f"{tid} is already split into subtasks")
    task = read_task(layout, sid, tid)
    if task.get("status") in ("active", "completed"):
        raise WfsError(
            f"{tid} is {task.get('status')}; only a pending or blocked task can be split"
        )
    siblings = [(t.get("id"), t.get("title", ""), t.get("status", "")) for t in skeletons]
    return sid, tid, planning.expand_brief(layout, sid, task, siblings)


def expand_task(
    layout: Layout,
    requested: str | None,
    task_id: str,
    command: str,
    rounds: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """`wfs task expand ID`: the planning agent's subtasks of the task, validated and
    written as `task split --from` writes them, or nothing."""
    from wfs import edit, planning  # deferred: only planning with an agent loads it

    sid, tid, brief = expand_brief(layout, requested, task_id)

    def accept(raw: bytes, where: str) -> list[Any]:
        return edit.split_task(layout, sid, tid, raw, where)

    created, used = planning.converse(
        layout,
        command,
        brief,
        accept,
        what="subtask array",
        name=f"{tid}-subtasks.json",
        rounds=rounds,
        progress=progress,
    )
    return {"session": sid, "task": tid, "subtasks": [t["id"] for t in created], "rounds": used}


def import_session(layout: Layout, source: str, new: bool = False) -> dict[str, Any]:
    """`wfs import PATH`: a new session (the only active one) from a Maestro-Flow session.

    Importing a session again is idempotent while its files are unchanged (nothing is
    written); once they changed, it is refused unless `new` (a second session)."""
    from wfs import edit  # deferred: only a write loads the writers

    imported = maestro.read_session(layout, source)
    record = imported.fields[maestro.RECORD]
    summary = {"from": record["session"], "ids": record["ids"], "tasks": len(imported.tasks)}
    earlier = imported_sessions(layout).get(record["session"])
    if earlier is not None and not new:
        before = load_session(layout, earlier).get(maestro.RECORD)
        if isinstance(before, dict) and before.get("fingerprint") == record["fingerprint"]:
            path = layout.relative(layout.session_dir(earlier))
            return {"session": earlier, "path": path, "imported": False, **summary}
        raise WfsError(
            f"{record['session']} was imported as {earlier}, and its files have changed "
            f"since; `wfs import --new {source}` makes a second session from it as it is now"
        )
    sid = edit.new_session_from_import(layout, imported)
    path = layout.relative(layout.session_dir(sid))
    return {"session": sid, "path": path, "imported": True, **summary}


def switch(layout: Layout, value: str) -> dict[str, Any]:
    """`wfs switch ID`: make it the single active session; say which ones were paused."""
    from wfs.lifecycle import switch as make_active  # deferred: only a change of session loads it

    before = active_ids(layout)
    sid = make_active(layout, value)
    return {"session": sid, "status": "active", "paused": [s for s in before if s != sid]}


def chosen_sessions(layout: Layout, requested: str | None, every: bool) -> list[str]:
    """The sessions `--all` names (every one), else the one `requested` or active."""
    return session_ids(layout) if every else [current_session(layout, requested)]


def validated_sessions(layout: Layout, requested: str | None, every: bool) -> list[str]:
    """The sessions `wfs validate` checks: as `chosen_sessions`, but none (rather than
    "no active session") in a project whose only plans are Maestro-Flow sessions, which
    `validate` checks instead."""
    if not every and requested is None and not session_ids(layout):
        if maestro_sessions(layout):
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
    found = maestro_sessions(layout)
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
    from wfs.edit import import_problems  # deferred: only a Maestro project loads the writers
    from wfs.rules import Problem  # deferred: with the rules, which edit loads anyway

    problems: list[Any] = []
    for row in waiting:
        try:
            imported = maestro.read_session(layout, row["path"])
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
    return preview(runner, read_task(layout, runner.sid, task_id))


def task_list(
    layout: Layout, requested: str | None, status: str | None, ready: bool
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task list`: (what --json prints, the task files that cannot be read)."""
    sid = current_session(layout, requested)
    index = TaskIndex(load_skeletons(layout, sid))
    ids = index.ready() if ready else sorted(index.by_id, key=task_sort_key)
    rows = [task_row(index, tid) for tid in ids]
    if status:
        rows = [r for r in rows if ("container" if r["container"] else r["status"]) == status]
    return {"session": sid, "tasks": rows}, [
        t["unreadable"] for t in index.tasks if t.get("unreadable")
    ]


def session_list(
    layout: Layout,
) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """`wfs session list`: a row per session, why the unreadable ones are, and the
    project's Maestro-Flow sessions (wfs.sessions.maestro_sessions)."""
    active = set(active_ids(layout))
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for sid in session_ids(layout):
        try:
            data = load_session(layout, sid)
        except WfsError as err:
            errors.append(err.message)
            rows.append({"id": sid, "active": sid in active, "error": err.message})
            continue
        # phase and type as the session file says them, else derived (docs/formats.md)
        summary = answers(layout, sid)["summary"]
        rows.append(
            {
                "id": sid,
                "active": sid in active,
                "status": shown_status(layout, sid, data),
                "phase": summary["phase"],
                "type": summary["type"],
                "project": summary["project"],
            }
        )
    return rows, errors, maestro_sessions(layout)


def session_show(layout: Layout, requested: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """`wfs session show`: (what --json prints, the summary its text shows)."""
    sid = current_session(layout, requested)
    summary = _summary(layout, sid)
    data = {
        "session": load_session(layout, sid),
        "active": sid in active_ids(layout),
        "path": layout.relative(layout.session_dir(sid)),
        "counts": summary["counts"],
        "progress": summary["progress"],
    }
    return data, summary


def change_session(layout: Layout, action: str, requested: str | None) -> dict[str, Any]:
    """`wfs session pause|resume|complete`."""
    from wfs import lifecycle  # deferred: only a change of session loads it

    sid = current_session(layout, requested)
    if action == "resume":
        lifecycle.switch(layout, sid)
        status = "active"
    elif action == "pause":
        lifecycle.pause(layout, sid)
        status = "paused"
    else:
        lifecycle.complete(layout, sid)
        status = "completed"
    return {"session": sid, "status": status}


class Outcome(NamedTuple):
    data: dict[str, Any]
    exit_code: int


def render(layout: Layout, sids: list[str], every: bool, check: bool) -> Outcome:
    """`wfs render [--check]`: write the views of the sessions that are stale, under
    each session's lock; with `check`, change nothing and name the stale ones and the
    changes left half done (exit 1 if any)."""
    from wfs import render as views  # deferred: only a render loads the views

    which: dict[str, Any] = {"sessions": sids} if every else {"session": sids[0]}
    # Views are rendered from the whole plan: a task file that cannot be read stops it.
    skeletons = [t for sid in sids for t in load_skeletons(layout, sid)]
    unreadable = [t["unreadable"] for t in skeletons if t.get("unreadable")]
    if unreadable:
        raise WfsError("\n".join(unreadable))
    paths: list[str] = []
    interrupted: list[str] = []  # sessions with a half-applied change (a pending journal)
    for sid in sids:
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
                    session_dir, load_session(layout, sid), load_skeletons(layout, sid)
                )
        paths += [layout.relative(session_dir / name) for name in names]
    if check:
        data = {**which, "stale": paths, "interrupted": interrupted}
        return Outcome(data, 1 if paths or interrupted else 0)
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


def migrate(layout: Layout, requested: str | None, every: bool) -> dict[str, list[str]]:
    """`wfs migrate [--all]`: session (or copy of one) -> the files rewritten."""
    from wfs.edit import migrate as rewrite  # deferred: only a write loads the writers

    if not every:
        sid = current_session(layout, requested)
        return {sid: rewrite(layout, sid)}
    # every copy of every session (validate --all reads them all)
    names = session_ids(layout)
    return {
        (f.name if f.path == layout.session_dir(f.name) else layout.relative(f.path)): (
            rewrite(layout, f.name, f.path)
        )
        for f in session_folders(layout)
        if f.name in names
    }


def migrate_layout(layout: Layout, target: str) -> dict[str, Any]:
    """`wfs migrate --layout markers|active`: every session moved into that layout."""
    from wfs.lifecycle import convert_layout  # deferred: only a change of session loads it

    moves = convert_layout(layout, target)
    return {"layout": target, "moved": [{"from": a, "to": b} for a, b in moves]}
