"""A project set up, and plans: from a document, by the planning agent, or a session
imported from elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from wfs import maestro
from wfs.errors import WfsError, os_error_place
from wfs.layout import Layout, check_topic
from wfs.sessions import (
    active_ids,
    require_session,
    topic_session,
)


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


def import_session(layout: Layout, source: str, new: bool = False) -> dict[str, Any]:
    """`wfs import PATH`: a new session from a Maestro-Flow plan (wfs.importing.import_plan)."""
    from wfs import importing  # deferred: only a write loads the writers

    imported, sid, made = importing.import_plan(layout, source, new)
    record = imported.fields[maestro.RECORD]
    summary = {"from": record["session"], "ids": record["ids"], "tasks": len(imported.tasks)}
    path = layout.relative(layout.session_dir(sid))
    active = sid in active_ids(layout)
    return {"session": sid, "path": path, "imported": made, "active": active, **summary}
