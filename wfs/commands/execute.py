"""`wfs execute`, `wfs flow`, `wfs capture` and `wfs log`: run steps, and show how
every stop goes on (wfs/commands/progress.py shows a run while it goes)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple

import click

from wfs import jsonio
from wfs.cli import Env, F, pass_env, root_option, typed_task_ids
from wfs.commands.progress import Plain, json_line, reporter
from wfs.completion import complete_task_id
from wfs.errors import WfsError
from wfs.flow import session_run
from wfs.flow.answer import read_answer
from wfs.flow.stepping import WAITING_FOR_AGENT
from wfs.maestro import MAESTRO
from wfs.plans import plan_lines
from wfs.platform import shell_join
from wfs.query import agent_setup_lines, idle_lines, one_line
from wfs.store import read_input
from wfs.text import elapsed_text


def answer_options(func: F) -> F:
    """--output, --output-file and --skip: how a resumed run goes on where it stopped."""
    for option in (
        click.option("--skip", is_flag=True, help="With --resume: skip the step where it stopped."),
        click.option(
            "--output-file",
            type=click.Path(dir_okay=False, allow_dash=True),
            metavar="F",
            help="With --resume: read the stopped step's answer from F (`-`: stdin).",
        ),
        click.option(
            "--output", "output_text", metavar="TEXT", help="With --resume: the step's answer."
        ),
    ):
        func = option(func)
    return func


def _resume_answer(
    output_text: str | None, output_file: str | None, skip: bool, resuming: bool
) -> str | None:
    """The answer given with --output or --output-file (`-`: stdin), checked before any
    change: an empty one is refused (exit 2)."""
    if sum(x is not None for x in (output_text, output_file)) + skip > 1:
        raise click.UsageError("give at most one of --output, --output-file and --skip")
    if (output_text is not None or output_file or skip) and not resuming:
        raise click.UsageError("--output, --output-file and --skip go with --resume")
    if output_file is not None:
        raw, where = read_input(output_file)
        text, source = raw.decode("utf-8", "replace"), f"--output-file {where}"
    elif output_text is not None:
        text, source = output_text, "--output"
    else:
        return None
    read_answer(text, source)
    return text


def _show_result(env: Env, result: dict[str, Any]) -> None:
    tid, status = result["task"], result["status"]
    resume = shell_join(result.get("resume", []))
    if status == "completed":
        env.echo(f"{tid}: completed → {result['summary']}")
    elif status == "done elsewhere":
        env.echo(f"{tid}: passed over: {one_line(result['note'], 1000)}")
    elif status == "paused":
        _show_pause(env, result)
    elif status == "not run":
        env.echo(f"{tid}: not run: {one_line(result['reason'], 1000)}")
        for line in result["reason"].splitlines()[1:]:
            env.echo(f"  {one_line(line, 1000)}")
    elif status == "refused":
        env.echo(f"{tid}: refused: {one_line(result['reason'], 1000)}")
        env.echo(f"  The step stays paused. Resume: {resume}")
        env.echo("  (with --output-file F or --output TEXT to answer, or --skip to skip it)")
    elif status == "interrupted":
        where = f" at {result['step']}" if result.get("step") else ""
        env.echo(f"{tid}: interrupted by {result['signal']}{where}; the task is paused.")
        env.echo(f"  Resume: {resume}")
        if result.get("go_on"):
            env.echo(f"  (or the whole run, this task first: {shell_join(result['go_on'])})")
    else:
        env.echo(f"{tid}: blocked: {one_line(result['reason'], 500)}")
        tries = result.get("tries", [])
        failed = [t for t in tries if "error" in t]
        if len(failed) > 1:
            for n, attempt in enumerate(failed, start=1):
                env.echo(f"  attempt {n} of {len(failed)}: {one_line(attempt['error'])}")
        for stream in ("stdout", "stderr"):
            lines = result.get("tail", {}).get(stream) or []
            if lines:
                env.echo(f"  {stream} (last {len(lines)} lines):")
                for line in lines:
                    env.echo(f"    {one_line(line, 400)}")
        env.echo(f"  Resume: {resume}")
        if result.get("landing"):
            env.echo("  (its steps are done: this lands it; no step runs again)")
        else:
            env.echo("  (runs the stopped step again; add --skip to skip it instead)")


def _show_pause(env: Env, result: dict[str, Any]) -> None:
    from wfs.flow.brief import as_text  # deferred: only a pause prints a brief

    brief = result["brief"]
    names = ", ".join(f"{s['name']} ({s['key']})" for s in brief["steps"])
    env.echo(f"Paused: {result['task']} · {names}: {result['reason']}")
    env.echo("")
    env.echo(as_text(brief, full=False).rstrip("\n"))
    env.echo("")
    env.echo(f"Resume: {shell_join(result['resume'])} --output-file F")
    env.echo("  (F holds the answer; `-` reads it from stdin. Or --output TEXT, or --skip.)")
    if result["reason"].startswith(WAITING_FOR_AGENT):
        env.lines(agent_setup_lines(result["resume"]))


def _remote_option(value: str | None) -> str | None:
    """--remote NAME: a remote's name or URL, never something git would read as an
    option (the one rule of wfs.git.operand)."""
    if value is not None and (not value or value.startswith("-")):
        raise click.BadParameter(f"{value!r}: a remote's name or URL never starts with '-'")
    return value


@click.command()
@click.argument(
    "task_id",
    metavar="[ID]",
    required=False,
    callback=typed_task_ids,
    shell_complete=complete_task_id,
)
@click.option(
    "--all",
    "run_all",
    is_flag=True,
    help="Keep going until no task is ready (a stopped run goes on).",
)
@click.option("--dry-run", is_flag=True, help="Show every resolved step; run nothing.")
@click.option(
    "--resume",
    "resume_id",
    metavar="ID",
    callback=typed_task_ids,
    shell_complete=complete_task_id,
    help="Continue a stopped task (paused, blocked, or left by a killed run).",
)
@answer_options
@click.option(
    "--agent",
    "agent_option",
    metavar="CMD",
    help="Agent command: gets each agent step's brief on stdin, answers on stdout.",
)
@click.option(
    "--agent-scope",
    type=click.Choice(["task", "step"]),
    default="task",
    show_default=True,
    help="task: consecutive agent steps go to the agent in one brief; step: one brief each.",
)
@click.option("--force", is_flag=True, help="Run tasks of a completed or archived session again.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="N",
    help="With --all: run up to N ready tasks at once, each in a git worktree of its own.",
)
@click.option("--in-worktree", is_flag=True, hidden=True)
@click.option("--task-from-stdin", is_flag=True, hidden=True)
@click.option(
    "--remote",
    "remote",
    metavar="NAME",
    callback=lambda _ctx, _param, value: _remote_option(value),
    help="Claims remote: lease tasks as refs there, shared by every clone "
    "(default: .workflow/config.json claims.remote).",
)
@pass_env
def execute(
    env: Env,
    task_id: str | None,
    run_all: bool,
    dry_run: bool,
    resume_id: str | None,
    output_text: str | None,
    output_file: str | None,
    skip: bool,
    agent_option: str | None,
    agent_scope: str,
    force: bool,
    jobs: int,
    in_worktree: bool,
    task_from_stdin: bool,
    remote: str | None,
) -> None:
    """Run a task's flow control: the given ID, or the next ready task.

    A task is completed only when every step in it ran and succeeded. Every stop prints
    the command that continues it: `--resume ID` runs the stopped step again (or takes
    the answer an agent step waits for), `--skip` skips it; finished steps never run
    again. Ctrl-C stops the running step and leaves the task paused.

    Each step's `verification` runs after it as a check: a red step's check must fail,
    a green one's must pass, going back to the agent with the failure up to
    test_fix_cycle.max_iterations times (auto_revert: then the step's changes are
    reverted through git). A completed or archived session runs again only with --force.

    --all goes on with the tasks a run left paused (Ctrl-C, an agent) or killed, then
    past tasks that wait or fail; it ends counting its tasks. --dry-run shows them all.

    Exit codes: 0 done (or nothing ready), 1 a step failed (task blocked) or nothing ran
    because the tasks that would be ready are invalid (each is named), 2 bad input (an
    invalid task, an empty answer, a finished session without --force), 3 paused for an
    agent or a person, 4 the task asked for by ID is held by another live run,
    130/143 interrupted. Every stop prints the command that goes on (`Resume: …`),
    with the --agent, --agent-scope and --remote this run was given. With --all, a
    task another live run holds is waited for, and one completed in another checkout
    is passed over (docs/parallel.md).

    With --all --jobs N, up to N ready tasks run at once, each in a git worktree of its
    own on the branch wfs/<session>/<task>, made from the branch checked out; a task
    starts as soon as its dependencies complete, and its work is committed and merged
    back into that branch when it completes (a conflict blocks it, naming the paths
    and the command that merges again once it is resolved).

    \b
    Example:
      wfs execute --all
      wfs execute --all --jobs 4
      wfs execute --resume IMPL-2 --output-file answer.md
    """

    modes = (task_id, resume_id, run_all, dry_run, jobs, in_worktree, task_from_stdin)
    answer = _checked_options(*modes, output_text, output_file, skip)
    options = Options(agent_option, agent_scope, force, jobs, remote)
    if env.session is None and not (task_id or resume_id or task_from_stdin or in_worktree):
        plans = session_run.plans_to_run(env.layout)
        if plans is not None:  # no session is active, and the project has Maestro-Flow plans
            _run_plans(env, plans, run_all, dry_run, options)
            return
    progress = reporter(env, _show_result, many=jobs > 1 or task_from_stdin)
    runner = session_run.runner(
        env.layout,
        env.current_session(),
        agent_option,
        root_option(env),
        progress=None if dry_run else progress,
        scope=agent_scope,
        remote=remote,
    )
    if dry_run:
        _dry_run(env, runner, task_id if task_id is not None else resume_id, run_all)
        return
    # A process --jobs N started ahead takes its task once it comes on stdin.
    order = _ordered_task() if task_from_stdin else (task_id, resume_id, in_worktree, None, True)
    if order is None:
        return  # no task came: nothing to do
    task_id, resume_id, in_worktree, base, tidy = order
    try:
        if jobs > 1:
            run = _run_jobs(env, runner, env.current_session(), options)
        else:
            run = session_run.execute(
                runner,
                task_id,
                resume_id,
                answer,
                skip,
                run_all,
                note=lambda text: env.echo(text, err=True),
                force=force,
                in_worktree=in_worktree,
                base=base,
                tidy=tidy,
            )
    finally:
        progress.close()
    _show_run(env, run)


def _checked_options(
    task_id: str | None,
    resume_id: str | None,
    run_all: bool,
    dry_run: bool,
    jobs: int,
    in_worktree: bool,
    task_from_stdin: bool,
    output_text: str | None,
    output_file: str | None,
    skip: bool,
) -> str | None:
    """The options of `wfs execute` that go together checked (a usage error, exit 2,
    for those that do not), and the answer given to a resumed step."""
    if task_from_stdin and (task_id or resume_id or in_worktree or run_all or jobs > 1 or dry_run):
        raise click.UsageError("--task-from-stdin goes with no ID and no other mode")
    if resume_id is not None and task_id is not None:
        raise click.UsageError("give either a task ID or --resume ID, not both")
    answer = _resume_answer(output_text, output_file, skip, resume_id is not None)
    if jobs > 1 and (not run_all or task_id or resume_id or dry_run):
        raise click.UsageError("--jobs N goes with --all (and no ID, --resume or --dry-run)")
    if in_worktree and not task_id:
        raise click.UsageError("--in-worktree goes with a task ID")
    return answer


def _show_run(env: Env, run: session_run.Execution) -> None:
    """After the tasks' results (shown as each ended): what the run as a whole says,
    and its exit code."""
    data = run.data
    if env.json:  # after the events, the result: the last line
        json_line(data)
    else:  # each task's result is shown as it ends
        env.lines(end_lines(run))
    if run.exit_code:
        click.get_current_context().exit(run.exit_code)


def _child_command(
    env: Env,
    sid: str,
    agent_option: str | None,
    agent_scope: str,
    force: bool,
    remote: str | None,
) -> Callable[[], list[str]]:
    """How `--jobs N` starts a process for the run of one task: this wfs, on this
    session, with the same options, its events as JSON Lines; it reads its task from
    stdin (`_order_from_stdin`)."""
    root = root_option(env)
    argv = [sys.executable, "-m", "wfs", *(["--root", root] if root else [])]
    argv += ["--session", sid, "execute", "--task-from-stdin"]
    argv += ["--json", "--agent-scope", agent_scope]
    argv += [*(["--agent", agent_option] if agent_option else []), *(["--force"] * force)]
    argv += ["--remote", remote] if remote else []
    return lambda: argv


class Options(NamedTuple):
    """How each task runs: the options of `wfs execute` that every session's run takes."""

    agent: str | None
    scope: str
    force: bool
    jobs: int
    remote: str | None


def _run_plans(
    env: Env, plans: list[dict[str, Any]], run_all: bool, dry_run: bool, options: Options
) -> None:
    """No session is active and the project has Maestro-Flow plans: run each plan with
    tasks to do in the wfs session imported from it (imported now when there is none,
    and left paused: no other session is touched), one plan after the other; without
    --all, the next ready task of the first plan that has one."""
    if dry_run or not plans:
        _show_plans(env, plans, dry_run)
        return
    results: list[dict[str, Any]] = []
    codes: list[int] = []
    for row in plans:
        try:
            sid, made = session_run.session_of_plan(env.layout, row)
        except WfsError as err:
            codes.append(2)
            if env.json:
                json_line({"event": "plan", "plan": row["name"], "error": err.message})
            else:
                first, *more = err.message.splitlines() or [""]
                env.echo(f"{row['name']}: cannot run: {one_line(first, 1000)}", err=True)
                env.lines([f"  {one_line(line, 1000)}" for line in more], err=True)
            continue
        if env.json:
            json_line({"event": "plan", "plan": row["name"], "session": sid, "imported": made})
        else:
            how = "imported as" if made else "runs in"
            env.echo(f"{row['name']} ({how} {sid}):", err=True)
        run = _run_session(env, sid, run_all, options)
        results.append(run.data)
        codes.append(run.exit_code)
        if run.signum is not None or (not run_all and run.data["tasks"]):
            break
    code = session_run.worst(codes)
    if env.json:
        status = {0: "completed", 1: "failed", 2: "refused", 3: "paused"}.get(code, "interrupted")
        tasks = [task for data in results for task in data["tasks"]]
        json_line({"session": None, "status": status, "sessions": results, "tasks": tasks})
    if code:
        click.get_current_context().exit(code)


def _run_jobs(env: Env, runner: Any, sid: str, options: Options) -> Any:
    """`--all --jobs N`: up to N ready tasks at once, each in a process of its own."""
    from wfs.flow import parallel  # deferred: only --jobs N loads the scheduler

    child = _child_command(env, sid, options.agent, options.scope, options.force, options.remote)
    return session_run.announcing(
        runner, lambda: parallel.run_all(runner, options.jobs, child, force=options.force)
    )


def _run_session(env: Env, sid: str, run_all: bool, options: Options) -> Any:
    """`wfs --session SID execute [--all]` with `options`, shown as it goes."""
    progress = reporter(env, _show_result, many=options.jobs > 1)
    runner = session_run.runner(
        env.layout,
        sid,
        options.agent,
        root_option(env),
        progress=progress,
        scope=options.scope,
        remote=options.remote,
    )
    try:
        if options.jobs > 1:
            run = _run_jobs(env, runner, sid, options)
        else:
            run = session_run.execute(runner, run_all=run_all, force=options.force)
    finally:
        progress.close()
    if not env.json:
        env.lines(end_lines(run))
    return run


def _show_plans(env: Env, plans: list[dict[str, Any]], dry_run: bool) -> None:
    """Nothing to run (every plan is done), or a dry run: the plans, and what a run does."""
    if env.json:
        json_line({"session": None, "maestro": plans, "dry_run": dry_run})
        return
    if not plans:
        env.echo(f"Nothing to do: every {MAESTRO} plan is done (`wfs status` lists them).")
        return
    env.lines(plan_lines(plans, False))
    env.echo(
        "Dry run: nothing is executed. Each plan is imported as a wfs session when it runs; "
        "`wfs import PATH` makes it now, and `wfs --session ID execute --dry-run` then shows "
        "each step and check."
    )


def _ordered_task() -> tuple[str | None, str | None, bool, str | None, bool] | None:
    """The task a process started by `--jobs N` runs, once it comes on stdin: (the task
    to run in its worktree, or the one to resume, whether in a worktree, the session's
    branch, whether it tidies up after itself); None when none came."""
    session_run.warm_up()
    order = _order_from_stdin()
    if order is None:
        return None
    tid, resume, base, tidy = order
    return (None, tid, False, base, tidy) if resume else (tid, None, True, base, tidy)


def _order_from_stdin() -> tuple[str, bool, str, bool] | None:
    """The task a process started by `--jobs N` runs, as one JSON line on stdin:
    {"task": ID, "resume": bool, "base": the session's branch}, and `"tidy": false`
    when `--jobs N` has git forget the worktrees of its tasks itself, all at once; None
    at the end of stdin (no task came)."""
    line = sys.stdin.buffer.readline()
    if not line.strip():
        return None
    try:
        order = jsonio.loads(line)
    except ValueError:
        order = None
    if not (
        isinstance(order, dict)
        and isinstance(order.get("task"), str)
        and isinstance(order.get("resume"), bool)
        and isinstance(order.get("base"), str)
        and isinstance(order.get("tidy", True), bool)
    ):
        raise click.UsageError('--task-from-stdin: expected {"task", "resume", "base"} on stdin')
    return order["task"], order["resume"], order["base"], order.get("tidy", True)


def end_lines(run: session_run.Execution) -> list[str]:
    """What a run says at its end, after each task's result: why nothing ran, an
    interruption between tasks and how the run goes on, and with --all how it came out."""
    data = run.data
    lines = []
    if data.get("invalid"):
        lines += invalid_lines(data["invalid"])
    elif not data["tasks"]:
        lines += idle_lines(data["stopped"])
    if run.signum is not None and not run.interrupted:
        lines.append("Interrupted: stopped before the next task.")
        if data.get("go_on"):
            lines.append(f"  The run goes on with: {shell_join(data['go_on'])}")
    if data["tasks"] and "tally" in data:
        lines.append(tally_line(data["tally"]))
    return lines


def tally_line(counts: dict[str, int]) -> str:
    """The last line of an `--all` run: its tasks by status, and those still pending."""
    order = ("completed", "done elsewhere", "paused", "blocked", "refused", "not run")
    known = [*order, *sorted(set(counts) - {*order, "pending"})]  # interrupted, ...
    said = [f"{counts[status]} {status}" for status in known if counts.get(status)]
    pending = counts.get("pending", 0)
    after = f"; {pending} task{'s' if pending != 1 else ''} still pending" if pending else ""
    return f"Run: {', '.join(said)}{after}."


def invalid_lines(invalid: list[dict[str, Any]]) -> list[str]:
    """Nothing ran: the tasks that would be ready cannot run as written, and why."""
    count = len(invalid)
    lines = [
        f"No task ran: {count} task{'s' if count != 1 else ''} that would be ready "
        f"cannot run as written (`wfs validate` reports the same):"
    ]
    for entry in invalid:
        lines.append(f"  {entry['task']} ({entry['file']}):")
        lines.extend(f"    {one_line(reason, 1000)}" for reason in entry["reasons"])
    return lines


def _dry_run(env: Env, runner: Any, task_id: str | None, run_all: bool) -> None:
    """`--dry-run`: the steps of the task (ID, else the next ready one), or with --all
    (and no ID) of every task the run would run, in its order."""
    from wfs import actions  # deferred: only a dry run reads through it (a run has its own door)
    from wfs.flow.preview import human_lines  # deferred: only a dry run loads the engine

    if run_all and task_id is None:
        every = actions.dry_run_all(env.layout, runner)
        if env.json:  # one line, as every `execute --json` ends
            json_line(every)
            return
        plans = every["tasks"]
        if not plans:
            env.echo("No task is ready.")
            return
        count = f"{len(plans)} task{'s' if len(plans) != 1 else ''}"
        env.echo(f"`--all` would run {count}, in this order, as each completes:")
        for plan in plans:
            env.echo("")
            env.lines(human_lines(plan))
        return
    plan = actions.dry_run(env.layout, runner, task_id)
    if env.json:  # one line, as every `execute --json` ends
        json_line(plan)
    elif plan.get("task") is None:
        env.echo("No task is ready.")
    else:
        env.lines(human_lines(plan))


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--agent", "agent_option", metavar="CMD", help="Agent command for agent steps.")
@click.option(
    "--resume", "resume", is_flag=True, help="Continue the paused run of FILE where it stopped."
)
@answer_options
@pass_env
def flow(
    env: Env,
    file: str,
    agent_option: str | None,
    resume: bool,
    output_text: str | None,
    output_file: str | None,
    skip: bool,
) -> None:
    """Run the inline [FLOW_CONTROL] steps of a markdown file, in order.

    Outputs accumulate as [variables]; there are no dependencies. A run that stops
    (an agent step, a failure, Ctrl-C) continues with `wfs flow FILE --resume`.

    \b
    Example:
      wfs flow brainstorm-prompt.md --json
      wfs flow brainstorm-prompt.md --resume --output-file answer.md
    """
    from wfs.flow.inline import parse_inline, run_file  # deferred: only `wfs flow` loads it

    answer = _resume_answer(output_text, output_file, skip, resume)
    raw, where = read_input(file)
    specs = parse_inline(raw.decode("utf-8", "replace"), where)
    given = {"skip": skip, "output": answer} if resume else None
    # --json prints one document at the end: the steps go to stderr as plain lines.
    progress = Plain(env, _show_result) if env.json else reporter(env, _show_result)
    try:
        result, code = run_file(
            env.layout,
            env.session,
            file,
            specs,
            where,
            agent_option=agent_option,
            root_option=root_option(env),
            progress=progress,
            resume=given,
        )
    finally:
        progress.close()

    def human() -> None:
        if result["status"] == "completed":
            for name, value in result.get("values", {}).items():
                env.echo(f"[{name}]\n{value}")
        else:
            _show_result(env, result)

    env.emit(result, human)
    if code:
        click.get_current_context().exit(code)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("kind")
@click.argument("description")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@pass_env
def capture(env: Env, kind: str, description: str, command: tuple[str, ...]) -> None:
    """Run COMMAND and save its output as KIND-<slug>-<timestamp>.md.

    It goes to the active session's .chat/, or to .workflow/.scratchpad/ when no session
    is active. Exits 1 when the command fails.

    \b
    Example:
      wfs capture analyze "auth flow" -- rg -n login src/
    """
    from wfs.capture import capture as run_capture  # deferred: only `wfs capture` loads it

    saved, code = run_capture(env.layout, env.session, kind, description, list(command))
    path = env.layout.relative(saved)
    env.emit({"path": path, "exit_code": code}, lambda: env.echo(path))
    if code != 0:
        click.get_current_context().exit(1)


# ---------------------------------------------------------------- wfs log


def human_log(env: Env, event: dict[str, Any], pending: list[str], tagged: bool = False) -> None:
    """One event of `wfs log`, for a person; `tagged`: each step line names its task
    (the tasks of a whole run may run at once)."""
    kind = event["event"]
    who = f"{event.get('task')} " if tagged else ""
    if kind == "task":
        now = " (running now)" if event["running"] else ""
        env.echo(f"{event['task']} · {event['title']}: {event['status']}{now}")
        pending.extend(s["name"] for s in event["steps"] if s["status"] == "not started")
    elif kind == "step_started":
        env.echo(f"  {who}▶ {event['name']} …")
    elif kind == "output":
        env.echo(f"    {who}{'| ' if tagged else ''}{event['text']}")
    elif kind == "output_cut":
        env.echo(
            f"    {who}… (the log keeps no more of this output; "
            "it is kept whole beside the run record)"
        )
    elif kind == "step_running":
        env.echo(f"  {who}· {event['name']}: running ({elapsed_text(event['elapsed'])} so far)")
    elif kind == "step_finished":
        outcome = str(event["outcome"])
        color = {"done": "green", "skipped": "yellow", "paused": "yellow"}.get(outcome, "red")
        elapsed = event.get("elapsed")
        took = f" ({elapsed:.2f}s)" if isinstance(elapsed, (int, float)) else ""
        env.echo(f"  {who}· {event['name']}: {env.style(outcome, fg=color)}{took}")
    elif kind == "task_finished":
        env.echo(f"{event['task']}: the run stopped; the task is {event['status']}")
    elif kind == "run_finished" and event["idle"]:
        env.echo(f"No run of {event['session']} is going on; `wfs log ID` shows a task's last run.")
    elif kind == "run_finished":
        env.echo(f"The run of {event['session']} ended.")


@click.command("log")
@click.argument(
    "task_id",
    metavar="[ID]",
    required=False,
    callback=typed_task_ids,
    shell_complete=complete_task_id,
)
@click.option(
    "--follow",
    "-f",
    is_flag=True,
    help="Keep printing new output until the task's run stops (no ID: the whole run).",
)
@pass_env
def log(env: Env, task_id: str | None, follow: bool) -> None:
    """Show a task's run: each step with its status, elapsed time and output.

    The output is what the step's commands (and its agent) wrote, stdout and stderr
    as they came, kept in the run record while the step runs. With --follow, new
    output is printed as it comes, from another terminal while `wfs execute` runs,
    until no process runs the task any more. --follow with no ID follows the
    session's whole run: each task as it runs, until the run ends (`wfs execute --all`
    included, between its tasks). --json: one event per line.

    \b
    Example:
      wfs log IMPL-2 --follow
      wfs log --follow
    """
    from wfs.flow import runlog  # deferred: only `wfs log` reads a run back

    if task_id is None and not follow:
        raise click.UsageError(
            "give a task ID (`wfs log ID`), or --follow to follow the session's run"
        )
    context = session_run.runner(env.layout, env.current_session()).context
    pending: list[str] = []

    def emit(event: dict[str, Any]) -> None:
        if env.json:
            json_line(event)
        else:
            human_log(env, event, pending, tagged=task_id is None)

    if task_id is None:
        runlog.follow_run(context, emit)
        return
    tid = runlog.known_task(context, task_id)
    if follow:
        runlog.follow(context, tid, emit)
    else:
        events, _, _, _ = runlog.snapshot(context, tid)
        for event in events:
            emit(event)
        for name in pending:
            env.echo(f"  · {name}: not started")
