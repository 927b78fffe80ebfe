"""Running a session's tasks: one task, a stopped one resumed, or every ready one.

What `wfs execute` (and the MCP server's execute and resume tools) does between parsing
its options and printing: set up the engine's runner, run the tasks, carry on with
`--all` while they complete or block, stop between tasks on a signal, and decide the
exit code. The engine (wfs/flow/engine.py) runs one task.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from wfs import jsonio, platform, render, store, templating
from wfs.claims import claim_alive
from wfs.errors import WfsError
from wfs.flow import engine, signals, worktrees
from wfs.flow.claiming import BlockedElsewhere, DoneElsewhere, HeldElsewhere, NotRunnable
from wfs.flow.engine import Runner
from wfs.flow.record import now
from wfs.flow.routing import agent_routes
from wfs.index import answers, load_skeletons
from wfs.layout import ARCHIVE_DIR, Layout, task_sort_key
from wfs.leases import LostLease
from wfs.plans import plan_rows, to_do
from wfs.query import command_prefix, stopped_view
from wfs.rules import TaskSource, load_file, refusal
from wfs.sessions import active_ids, load_session, marker_ids
from wfs.tasks import TaskIndex, obj, read_task


def runner(
    layout: Layout,
    sid: str,
    agent_option: str | None = None,
    root_option: str | None = None,
    progress: Any = None,
    scope: str = "task",
    remote: str | None = None,
) -> Runner:
    """The engine's runner for a session, as `wfs execute` sets it up (`remote`: the
    claims remote of --remote). The resume commands it prints carry the options given
    here that change how the task runs: the agent command, the agent scope and the
    claims remote (configured ones need no option)."""
    options = ["--agent", agent_option] if agent_option else []
    options += ["--agent-scope", scope] if scope != "task" else []
    options += ["--remote", remote] if remote else []
    return Runner(
        layout,
        sid,
        agent_routes(layout, agent_option),
        progress=progress,
        command_prefix=command_prefix(sid, root_option),
        scope=scope,
        remote=remote,
        resume_options=options,
    )


class Execution(NamedTuple):
    data: dict[str, Any]
    exit_code: int
    signum: int | None  # a signal that stopped the run between tasks
    interrupted: bool  # a task was interrupted while a step ran


# `--all` carries on after these ("not run": refused before it was claimed, with
# nothing changed; "paused": waiting for an agent or a person, while the tasks that do
# not wait on it run; "done elsewhere": completed in another checkout, passed over).
GOING_ON = ("completed", "blocked", "not run", "paused", "done elsewhere")


def going_on(result: dict[str, Any]) -> bool:
    """Whether `--all` goes on after a task's result."""
    return result["status"] in GOING_ON


def execute(
    runner: Runner,
    task_id: str | None = None,
    resume_id: str | None = None,
    answer: str | None = None,
    skip: bool = False,
    run_all: bool = False,
    note: Callable[[str], None] = lambda _: None,
    force: bool = False,
    in_worktree: bool = False,
    base: str | None = None,
    tidy: bool = True,
) -> Execution:
    """`wfs execute`: run task_id, continue resume_id (with `answer` or `skip`), or run
    the next ready task; with `run_all`, go on until nothing is ready.

    SIGINT, SIGTERM and SIGHUP (where the system has it) stop the running step and leave
    the task resumable.
    `note` gets what reclaiming a stopped task had to do (stale claims, orphans), each
    line starting with the task's id.
    The runner's progress callback gets each task's result as it ends (`finished`).
    A completed or archived session runs again only with `force` (else exit 2).
    When nothing ran because every task that would be ready cannot run as written, the
    result names them (`invalid`: file and reasons) and the exit code is 1.
    With `in_worktree` (what `--jobs N` asks of each task it starts), task_id runs in a
    git worktree of its own and its work is merged back when it completes; a task that
    ran in one resumes there. `base`: the session's branch, as `--jobs N` found it
    (else it is read from git). The worktree of a task merged back is removed after
    its result is shown, so what waits on it can start while that is done (with
    `tidy` false, only its folder: `--jobs N` has git forget it with the others).
    """
    if not force:
        refuse_finished(runner.layout, runner.sid)
    runner.in_worktrees = in_worktree or base is not None
    results: list[dict[str, Any]] = []

    def ended(result: dict[str, Any]) -> None:
        if run_all and result["status"] == "interrupted":
            result["go_on"] = runner.all_argv()  # the whole run goes on, this task first
        results.append(result)
        runner.progress("finished", result)  # shown as each task ends, not at the end

    with (
        signals.handled(),
        platform.run_of_steps(),
        announced(runner) if run_all else contextlib.nullcontext(),
    ):
        if resume_id is not None:  # an empty id is refused, never the next task
            resume(runner, resume_id, {"skip": skip, "output": answer}, ended, note, base, tidy)
        elif task_id is not None:
            if in_worktree and base is None:
                base = worktrees.session_branch(runner.layout)
            try:
                claimed = runner.claim(task_id)
            except DoneElsewhere as done:
                ended(done_elsewhere(runner, done))
            except HeldElsewhere as held:
                ended(held_elsewhere(held, in_worktree))
            else:
                assert claimed is not None
                if in_worktree and base is not None:
                    set_up_worktree(runner, claimed["id"], base)
                ended(run_claimed(runner, claimed, in_worktree))
                tidy_up(runner, results[-1], tidy)
        elif run_all:  # where an earlier run stopped, first
            for tid in stopped_by_a_run(runner):
                if signals.pending() is not None or (results and not going_on(results[-1])):
                    break
                resume(runner, tid, None, ended, note, scheduled=True)
        run_ready(runner, run_all, results, ended)
        signum = signals.pending()
    run = conclude(runner, results, signum)
    if run_all:
        run.data["tally"] = tally(runner, results)
        if signum is not None:
            run.data["go_on"] = runner.all_argv()
    return run


class Announcement:
    """While an `--all` run goes on (`--jobs N` too), the process that runs it, in the
    session's run marker: `wfs log --follow` follows the run until that process ends,
    across the moments between tasks when no task is claimed. Written once a task of
    the run has started (`mark`: a run refused before changes nothing), removed at the end
    unless another run took it over meanwhile; one a killed run left names a process
    that is gone."""

    def __init__(self, runner: Runner) -> None:
        self.path = runner.records.run_marker_path()
        self.mine = jsonio.dumps({"owner": runner.owner, "started_at": now()})
        self.marked = False

    def mark(self) -> None:
        if not self.marked:
            store.write_bytes(self.path, self.mine, durable=False)
            self.marked = True

    def close(self) -> None:
        if self.marked and not store.differs(self.path, self.mine):
            store.remove(self.path)


@contextlib.contextmanager
def announced(runner: Runner) -> Iterator[None]:
    """The run announced (Announcement) from the first step it reports to the end of
    the block."""
    announcement = Announcement(runner)
    shown = runner.progress

    def progress(event: str, data: dict[str, Any]) -> None:
        if event == "start":  # a step starts: a task runs (one refused ran nothing)
            announcement.mark()
        shown(event, data)

    runner.progress = progress
    try:
        yield
    finally:
        runner.progress = shown
        announcement.close()


def announcing(runner: Runner, run: Callable[[], Execution]) -> Execution:
    """`run()` (an `--all` run that another room does: `--jobs N`), announced, and its
    tasks counted by status as `execute` counts them (`tally`)."""
    with announced(runner):
        done = run()
    done.data.setdefault("tally", tally(runner, done.data["tasks"]))
    return done


def resume(
    runner: Runner,
    tid: str,
    given: dict[str, Any] | None,
    ended: Callable[[dict[str, Any]], None],
    note: Callable[[str], None],
    base: str | None = None,
    tidy: bool = True,
    scheduled: bool = False,
) -> None:
    """Continue the stopped task `tid` where it stopped (`given`: the answer or skip of
    `--resume`), in the worktree it ran in, if any; its result goes to `ended`.
    `scheduled`: `--all` or `--jobs N` came to it (see run_claimed)."""
    place = ran_in(runner, tid)
    try:
        task, notes = runner.reclaim(tid)
    except DoneElsewhere as done:
        if place is not None:  # what the stopped run left there is not wanted
            worktrees.clear(runner.layout, place)
        ended(done_elsewhere(runner, done))
        return
    except HeldElsewhere as held:
        ended(held_elsewhere(held, scheduled or runner.in_worktrees))
        return
    for text in notes:
        note(f"{tid}: {text}")
    if place is not None:
        enter(runner, place)
    elif base is not None:  # `--jobs N` takes over a task killed before its worktree
        set_up_worktree(runner, task["id"], base)
    result = run_claimed(runner, task, scheduled or runner.in_worktrees, given)
    ended(result)
    tidy_up(runner, result, tidy)


def stopped_by_a_run(runner: Runner) -> list[str]:
    """The tasks an earlier run left stopped that `--all` goes on with before the ready
    ones, in id order: paused (interrupted by Ctrl-C or SIGTERM, or waiting for an agent:
    asked again, so that an agent configured since answers, or the brief is shown
    again), or claimed by a process of this machine that is gone (killed). Blocked
    tasks wait for a person (`--resume ID`)."""
    index = TaskIndex(load_skeletons(runner.layout, runner.sid))
    found = []
    for tid in sorted(index.leaves(), key=task_sort_key):
        if index.by_id[tid].get("status") != "active":
            continue
        owner = obj(read_task(runner.layout, runner.sid, tid), "execution").get("claimed_by")
        if not owner or (isinstance(owner, str) and not claim_alive(owner)):
            found.append(tid)
    return found


def run_order(runner: Runner) -> list[str]:
    """The tasks `execute --all` would run, in the order it runs them when each
    completes: the stopped ones it goes on with (stopped_by_a_run), then each ready task
    (lowest id first) and those it makes ready. Tasks that cannot run as written are
    left out, as the run passes over them."""
    order = stopped_by_a_run(runner)
    skeletons = [dict(t) for t in load_skeletons(runner.layout, runner.sid)]
    for skeleton in skeletons:
        if skeleton.get("id") in order:
            skeleton["status"] = "completed"  # as if it ran, and what waits on it
    while True:
        index = TaskIndex(skeletons)  # anew: it keeps the statuses it derived
        ready = index.ready()
        if not ready:
            return order
        index.by_id[ready[0]]["status"] = "completed"  # as if it ran, and what waits on it
        order.append(ready[0])


def run_ready(
    runner: Runner,
    run_all: bool,
    results: list[dict[str, Any]],
    ended: Callable[[dict[str, Any]], None],
) -> None:
    """Run the next ready task (after the one asked for, if any: `results`); with
    `run_all`, go on while tasks complete or block, past those refused before they
    started or completed elsewhere, then wait for those that other runs hold."""
    passed: set[str] = set()  # refused before they started: `--all` goes on past them
    while (
        (run_all or not results)
        and (not results or going_on(results[-1]))
        and signals.pending() is None
    ):
        try:
            claimed = runner.claim(None, frozenset(passed))
        except NotRunnable as refused:
            if not run_all:
                raise
            passed.add(refused.task_id)
            ended({"task": refused.task_id, "status": "not run", "reason": refused.message})
            continue
        except DoneElsewhere as done:
            passed.add(done.task_id)
            ended(done_elsewhere(runner, done))
            continue
        if claimed is None:
            if run_all and wait_for_holders(runner, frozenset(passed)):
                continue  # a task another run held is free (or done) now
            break
        ended(run_claimed(runner, claimed, run_all))
        if results[-1].get("held"):
            passed.add(claimed["id"])  # another run has it now: waited for at the end
        if not run_all:
            break


def conclude(runner: Runner, results: list[dict[str, Any]], signum: int | None) -> Execution:
    """The result of a run from the results of its tasks, and its exit code."""
    # A task another clone holds (with a claims remote) is that clone's to run: no failure.
    statuses = [r["status"] for r in results if not r.get("held")]
    interrupted = [r for r in results if r["status"] == "interrupted"]
    if interrupted:
        code, overall = interrupted[0]["exit_code"], "interrupted"
    elif signum is not None:
        code, overall = 128 + signum, "interrupted"
    elif "refused" in statuses or any(
        r["status"] == "not run" and not r.get("failed") for r in results if not r.get("held")
    ):
        code, overall = 2, "refused"
    elif "paused" in statuses:
        code, overall = 3, "paused"
    elif "blocked" in statuses or "not run" in statuses:  # not run: its process failed
        code, overall = 1, "failed"
    else:
        code, overall = 0, "completed" if results else "idle"
    data: dict[str, Any] = {"session": runner.sid, "status": overall, "tasks": results}
    if not results:
        data["stopped"] = stopped_view(
            answers(runner.layout, runner.sid)["summary"].get("stopped", []),
            runner.command_prefix,
        )
        if signum is None and any(entry["state"] == "invalid" for entry in data["stopped"]):
            invalid = invalid_candidates(runner.layout, runner.sid)
            if invalid:
                data.update(status="invalid", invalid=invalid)
                code = 1
    return Execution(data, code, signum, bool(interrupted))


def run_claimed(
    runner: Runner, task: Any, scheduled: bool, resume: dict[str, Any] | None = None
) -> dict[str, Any]:
    """engine.run_task, for a task `--all` or `--jobs N` came to (`scheduled`): a run
    that lost its lease meanwhile (another run took the task over) wrote nothing more
    of it, and the task is that run's now: held elsewhere, as if it had been held
    when this run came to it (no failure). Asked for by name, LostLease is raised."""
    try:
        return engine.run_task(runner, task, resume)
    except LostLease as lost:
        if not scheduled:
            raise
        held = {"task": task["id"], "status": "not run", "reason": lost.message, "held": True}
        return held | {"wait": True}


HOLDER_POLL_SECONDS = 0.5  # how often `--all` looks whether a task held elsewhere is free


def wait_for_holders(runner: Runner, passed: frozenset[str]) -> bool:
    """`--all` found nothing to claim: while a ready task is held by a live run
    elsewhere, wait for that run to end (looking every HOLDER_POLL_SECONDS); True when
    one such task is free now (done there, or its holder gone: the caller claims
    again), False when none was held (or a stop signal came)."""
    held = set(runner.claimer.held_ready(passed))
    if not held:
        return False
    while signals.pending() is None:
        time.sleep(HOLDER_POLL_SECONDS)  # a stop signal is seen after it, at the latest
        if not held & set(runner.claimer.held_ready(passed)):
            return signals.pending() is None
    return False


def tally(runner: Runner, results: list[dict[str, Any]]) -> dict[str, int]:
    """How an `--all` run came out: its tasks by status (completed, paused, blocked,
    not run...), and how many tasks of the session are still pending after it (waiting
    on those that stopped, or not reached)."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    found = answers(runner.layout, runner.sid)
    counts["pending"] = sum(
        1
        for tid, status in found["status"].items()
        if status == "pending" and not found["children"].get(tid)
    )
    return counts


def done_elsewhere(runner: Runner, done: DoneElsewhere) -> dict[str, Any]:
    """The result of a task completed in another checkout: completed, with nothing run
    here, when its work came in (through the claims remote); else `done elsewhere`,
    passed over (what depends on it waits here), saying where it landed."""
    landed = done.landed
    if landed is not None:
        return {
            "task": done.task_id,
            "status": "done elsewhere",
            "note": done.message,
            "where": landed.where,
            "branch": landed.branch,
            "commit": landed.commit,
        }
    return {
        "task": done.task_id,
        "status": "completed",
        "summary": runner.layout.relative(runner.records.summary_path(done.task_id)),
        "steps": [],
        "note": done.message,
    }


def held_elsewhere(held: HeldElsewhere, scheduled: bool) -> dict[str, Any]:
    """The result of a task another clone holds: left to it when `--jobs N` asked for
    it (`held`: no failure); a person who asked for it is told, as a refusal."""
    if not scheduled:
        raise held
    result = {"task": held.task_id, "status": "not run", "reason": held.message, "held": True}
    if not isinstance(held, BlockedElsewhere):
        result["wait"] = True  # a live run has it: `--jobs N` waits for that run to end
    return result


def set_up_worktree(runner: Runner, tid: str, base: str) -> None:
    """Give the claimed task `tid` its worktree, made from the session's branch `base`;
    a task whose worktree cannot be made is blocked, saying why."""
    try:
        place = worktrees.prepare(runner.layout, runner.sid, tid, base)
    except WfsError as err:
        runner.finish(tid, "blocked", f"cannot make the task's worktree: {err.message}")
        raise
    record = runner.records.load(tid)
    record["worktree"] = place.as_record()
    record["files_before"] = {}  # a worktree made afresh: nothing in it is changed yet
    runner.records.save(record)
    runner.worktree = place


def warm_up() -> None:
    """Load ahead what running a task loads when it first needs it (filelock for the
    claim, jinja2, the templates of the views and of the summary): a process that
    `--jobs N` starts before its task is ready does it while it waits."""
    platform.lock_class()
    templating.macros(render.PARTS)
    for view in render.VIEWS:
        templating.template(f"{view}.j2")
    templating.template("summary.md.j2")


def tidy_up(runner: Runner, result: dict[str, Any], tidy: bool = True) -> None:
    """After a task's work was merged back from its worktree: remove the worktree and
    delete its branch (its commits are in the session's branch); without `tidy`, only
    its folder (worktrees.let_go)."""
    if runner.worktree is not None and result["status"] == "completed":
        if tidy:
            worktrees.clear(runner.layout, runner.worktree)
        else:
            worktrees.let_go(runner.worktree)


def ran_in(runner: Runner, tid: str) -> worktrees.Place | None:
    """The worktree the task's run record says it ran in, if any (what cannot be read
    is left for `reclaim` to say)."""
    try:
        return worktrees.from_record(runner.records.load(tid).get("worktree"))
    except WfsError:
        return None


def enter(runner: Runner, place: worktrees.Place) -> None:
    """Resume a task in the worktree it ran in (made again from its branch if gone)."""
    try:
        worktrees.restore(runner.layout, place)
    except WfsError as err:
        raise WfsError(f"cannot restore the task's worktree {place.path}: {err.message}") from None
    runner.worktree = place


def refuse_finished(layout: Layout, sid: str) -> None:
    """Exit 2 for a session that is completed (or archived): it runs again only with
    --force."""
    folder = layout.session_dir(sid)
    archived = layout.place_of(folder) == ARCHIVE_DIR
    if archived or load_session(layout, sid).get("status") == "completed":
        where = f"archived in {layout.relative(folder)}/" if archived else "completed"
        raise WfsError(
            f"session {sid} is {where}; `wfs execute` runs a finished session again only "
            f"with --force (or reopen it first: `wfs session resume {sid}`)"
        )


def invalid_candidates(layout: Layout, sid: str) -> list[dict[str, Any]]:
    """The tasks that would be ready (pending leaves whose dependencies are completed)
    but cannot run as written, each with its file and the reasons, as `wfs validate`
    gives them."""
    index = TaskIndex(load_skeletons(layout, sid))
    found = []
    for tid in sorted(index.leaves(), key=task_sort_key):
        skeleton = index.by_id[tid]
        if skeleton.get("status") != "pending" or not skeleton.get("errors"):
            continue
        if index.unmet_dependencies(tid):
            continue
        where = layout.relative(layout.task_file(sid, tid))
        if skeleton.get("unreadable"):
            _, problem, _ = load_file(layout.task_file(sid, tid), where)  # as validate says it
            reasons = [str(problem or skeleton["unreadable"])]
        else:
            reasons = refusal(TaskSource(where, read_task(layout, sid, tid), tid))
        found.append({"task": tid, "file": where, "reasons": reasons})
    return found


# ---------------------------------------------------------------- Maestro-Flow plans


def plans_to_run(layout: Layout) -> list[dict[str, Any]] | None:
    """The Maestro-Flow plans `wfs execute` runs when no session is named: None when a
    wfs session is active (which runs instead) or the project has no plan; else the
    plans with tasks to do (wfs.plans.plan_rows), which may be none. Nothing is written."""
    if active_ids(layout) or marker_ids(layout):
        return None
    rows = plan_rows(layout)
    return to_do(rows) if rows else None


def session_of_plan(layout: Layout, row: dict[str, Any]) -> tuple[str, bool]:
    """The wfs session that runs a Maestro-Flow plan: the one imported from it, else
    one imported now (paused: no other session is touched, and none is made active);
    and whether it was imported now. Raises WfsError when the plan cannot be."""
    if row.get("imported_as"):
        return row["imported_as"], False
    if "error" in row:
        raise WfsError(row["error"])
    from wfs import importing  # deferred: only a run of a Maestro-Flow plan loads the writers

    _, sid, made = importing.import_plan(layout, row["path"], activate=False)
    return sid, made


def worst(codes: list[int]) -> int:
    """The exit code of several runs: an interruption, then bad input, a pause, a
    failure, success (as `conclude` ranks the statuses of one run's tasks)."""
    interrupted = [c for c in codes if c >= 128]
    if interrupted:
        return interrupted[0]
    return next((c for c in (2, 3, 1) if c in codes), 0)
