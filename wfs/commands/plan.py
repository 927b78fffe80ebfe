"""`wfs init`, `wfs plan`, `wfs import` and `wfs switch`: start a project, a plan (made
here or by Maestro-Flow), or work on another one."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource

from wfs import actions
from wfs.cli import (
    Env,
    pass_env,
    planning_agent_options,
    progress_lines,
    refused_answer,
    root_option,
)
from wfs.completion import complete_session_id
from wfs.errors import WfsError
from wfs.platform import shell_join
from wfs.schemas import COMPLEXITIES
from wfs.store import read_input


@click.command()
@click.option(
    "--no-git", is_flag=True, help="Skip .gitattributes, the merge drivers and the hooks."
)
@pass_env
def init(env: Env, no_git: bool) -> None:
    """Create .workflow/ and its .gitignore here, and set up git merging; safe to run again.

    Adds merge rules for the plan files to .gitattributes (keeping existing lines) and,
    in a git work tree, configures the wfs merge drivers and the pre-merge-commit and
    post-merge hooks that put freshly rendered views into merge commits (an existing
    hook that is not wfs's is left alone). Run it once in every fresh clone.

    \b
    Example:
      wfs init
    """
    layout = env.layout
    data, setup = actions.init(layout, git=not no_git)

    def human() -> None:
        env.echo(f"{'Initialized' if data['created'] else 'Already initialized'} {layout.workflow}")
        if data["markers_ignored"] == "added":
            env.echo(
                ".workflow/.gitignore: .active-* markers stay out of commits "
                "(which session is active is each person's own)"
            )
        if setup is not None:
            _print_git_setup(env, setup)

    env.emit(data, human)
    if setup is not None:
        for name, line in setup.manual.items():
            env.echo(
                f"wfs: warning: {setup.hooks_path}/{name} is not wfs's; to keep plan views "
                f"fresh in merge commits, add this line to it:\n  {line}",
                err=True,
            )


def _print_git_setup(env: Env, setup: Any) -> None:
    if setup.gitattributes != "unchanged":
        env.echo(f".gitattributes: {setup.gitattributes} (merge rules for the plan files)")
    if setup.drivers == "configured":
        env.echo("git: merge drivers wfs-views and wfs-json configured")
    for name, state in setup.hooks.items():
        if state in ("installed", "updated"):
            env.echo(f"git: {setup.hooks_path}/{name} {state}")
    if not setup.repository and setup.changed():
        env.echo("git: not a git work tree; run `wfs init` again after `git init`")


@click.command()
@click.argument("topic", required=False)
@click.option(
    "--from",
    "source",
    metavar="FILE|-",
    help="Plan document: {overview, requirements, tasks} or a task array.",
)
@click.option(
    "--from-doc",
    "document",
    metavar="FILE.md",
    help="Plan from this requirements document with the planning agent.",
)
@planning_agent_options
@click.option(
    "--dry-run", is_flag=True, help="Print the planning brief; ask no agent, write nothing."
)
@click.option("--empty", is_flag=True, help="Create the session with no tasks (no agent).")
@click.option(
    "--new",
    is_flag=True,
    help="Make a second session although the topic has one (default: update it).",
)
@click.option(
    "--here",
    is_flag=True,
    help="Plan in the current directory, even without .workflow/ here or above.",
)
@click.option(
    "--type",
    "session_type",
    type=click.Choice(COMPLEXITIES),
    help="Complexity to start from (it is only ever raised).",
)
@click.option(
    "--session",
    "replan_id",
    metavar="ID",
    shell_complete=complete_session_id,
    help="Add or replace tasks in this existing session instead.",
)
@click.pass_context
def plan(
    ctx: click.Context,
    topic: str | None,
    source: str | None,
    document: str | None,
    agent: str | None,
    max_rounds: int,
    dry_run: bool,
    empty: bool,
    new: bool,
    here: bool,
    session_type: str | None,
    replan_id: str | None,
) -> None:
    """Plan TOPIC with the planning agent, or from a plan document (--from).

    The planning agent gets a brief (the topic or the document of --from-doc, the
    repository's files and README, the sessions, the task format, an example plan) and
    answers with a plan. wfs validates it and sends the problems back, up to
    --max-rounds answers; the plan is written whole or not at all. With --from, the
    plan document is taken as it is, validated the same way. A topic that has a session
    updates it (tasks with the same id are replaced, keeping their status); --new makes
    a second one. Prints the session id. With --session ID, the plan's tasks are added
    to (or replace those of) that session.

    \b
    Example:
      wfs plan "User Auth System"
      wfs plan --from-doc requirements.md --agent "claude -p"
      wfs plan "User Auth System" --from plan.json
      wfs plan --session user-auth-system --from more-tasks.json
    """
    env = ctx.find_object(Env)
    assert env is not None
    explicit = _replanned(ctx, env, replan_id, topic is None and document is None)
    if not explicit and topic is None and document is None:
        raise click.UsageError("missing TOPIC (or --from-doc FILE.md, or --session ID)")
    _check_sources(source, document, empty, dry_run)
    if here:
        env.use_here()
    else:
        actions.require_project(env.layout)
    layout = env.layout
    if source is not None or empty or (explicit and document is None):
        data = actions.plan(
            layout,
            topic,
            None if source is None else lambda: read_input(source),
            session_type,
            explicit,
            new,
        )
        _announce(env, data, topic)
        env.emit(data, lambda: env.echo(data["session"]))
        return
    if explicit:
        raise click.UsageError("--session ID goes with --from FILE (plan into that session)")
    request = actions.planning_request(
        topic, None if document is None else lambda: read_input(document)
    )
    if dry_run:
        brief = actions.plan_brief(layout, request, new)
        env.emit({"brief": brief}, lambda: click.echo(brief, nl=False))
        return
    from wfs.planning import (  # deferred: only planning with an agent loads the runner
        PlanningFailed,
        no_agent_message,
        planner_command,
    )

    # The commands printed below go on as this run would have: from the same root and
    # folder, with the same agent and options.
    wfs_plan = ["wfs", *(["--root", r] if (r := root_option(env)) else []), "plan"]
    kept = _kept_options(session_type, new, here)
    command = planner_command(layout, agent)
    if command is None:
        with_agent = [*wfs_plan, *_topic_args(topic, document), *kept, "--agent", "CMD"]
        by_hand = [*wfs_plan, request.topic, *kept, "--from", "FILE"]
        empty_one = [*wfs_plan, request.topic, *kept, "--empty"]
        raise WfsError(
            no_agent_message(
                layout,
                shell_join(with_agent),
                f"or write the plan yourself and run `{shell_join(by_hand)}`, or "
                f"`{shell_join(empty_one)}` for a session with no tasks",
            )
        )
    try:
        data = actions.plan_with_agent(
            layout, request, command, session_type, new, max_rounds, progress_lines(env)
        )
    except PlanningFailed as failed:
        again = [*wfs_plan, *_topic_args(topic, document), *kept]
        again += [*(["--agent", agent] if agent else []), "--max-rounds", str(max_rounds * 2)]
        refused_answer(env, failed, [*wfs_plan, request.topic, *kept, "--from"], again)
        return
    _announce(env, data, request.topic)
    if not env.json:
        env.echo(f"wfs: plan accepted in round {data['rounds']} of {max_rounds}", err=True)
    env.emit(data, lambda: env.echo(data["session"]))


def _replanned(ctx: click.Context, env: Env, replan_id: str | None, no_topic: bool) -> str | None:
    """The session to plan into: --session ID, or the global --session (and WFS_SESSION
    when no topic is given). WFS_SESSION in the environment must not turn `wfs plan
    TOPIC` into a replan."""
    if replan_id is None and env.session and ctx.parent is not None:
        from_flag = ctx.parent.get_parameter_source("session") == ParameterSource.COMMANDLINE
        if from_flag or no_topic:
            return env.session
    return replan_id


def _check_sources(source: str | None, document: str | None, empty: bool, dry_run: bool) -> None:
    """Refuse options that exclude each other: one source of tasks at most, and
    --dry-run (the planning brief) with none."""
    sources = [
        name
        for name, given in (("--from", source), ("--from-doc", document), ("--empty", empty))
        if given
    ]
    if len(sources) > 1:
        raise click.UsageError(f"give one of {', '.join(sources)}")
    if dry_run and (source is not None or empty):
        raise click.UsageError(
            "--dry-run prints the planning brief; it goes without --from and --empty"
        )


def _topic_args(topic: str | None, document: str | None) -> list[str]:
    return [*([topic] if topic else []), *(["--from-doc", document] if document else [])]


def _kept_options(session_type: str | None, new: bool, here: bool) -> list[str]:
    """The options of `wfs plan` that a printed way on repeats (besides --agent)."""
    return [
        *(["--type", session_type] if session_type else []),
        *(["--new"] if new else []),
        *(["--here"] if here else []),
    ]


def _announce(env: Env, data: dict[str, Any], topic: str | None) -> None:
    """Say on stderr what became of the topic's session that existed before."""
    existing = data.get("existing")
    if not existing or env.json:
        return
    if data["updated"]:
        env.echo(
            f"wfs: session {existing} exists for this topic; updated it "
            f"({data['added']} task{'s' if data['added'] != 1 else ''} added, "
            f"{data['replaced']} replaced, statuses kept); --new makes a second session",
            err=True,
        )
    else:
        env.echo(
            f"wfs: session {existing} exists for this topic; --new made a second one, "
            f"{data['session']}, now the only active session ({existing} is paused)",
            err=True,
        )


@click.command("import")
@click.argument("source", metavar="PATH")
@click.option(
    "--new",
    is_flag=True,
    help="Import it again as a second session, although it was imported before.",
)
@pass_env
def import_session(env: Env, source: str, new: bool) -> None:
    """Make a wfs session from a Maestro-Flow plan, losslessly.

    PATH is a plan folder of any layout (`wfs session list` names them:
    .workflow/scratch/<date>-plan-<slug>, .workflow/milestones/<M>/artifacts/<slug>,
    .workflow/.lite-plan/<slug>, a quick task's folder), a Maestro session of
    .workflow/sessions/ (its current plan) or one of its runs, or that name. Each
    TASK-NNN becomes an IMPL-N in the order of the waves (the ids are kept in the session
    file and in each task's meta.source_id), written in the canonical task form;
    convergence.criteria are its acceptance criteria and convergence.verification its
    checks; nothing of Maestro's is written. The new session is made active when no
    other is; no other session is touched. Importing it again does nothing while its
    files are unchanged. (`wfs execute --all` imports and runs the plans by itself when
    no session is active.)

    \b
    Example:
      wfs import .workflow/scratch/20260301-plan-auth-flow
    """
    data = actions.import_session(env.layout, source, new)

    def human() -> None:
        if not data["imported"]:
            env.echo(f"{data['session']} (already imported from {data['from']}; unchanged)")
            return
        env.echo(data["session"])
        pairs = ", ".join(f"{old} -> {new_id}" for old, new_id in data["ids"].items())
        env.echo(f"  {data['tasks']} tasks from {data['from']}: {pairs}")
        if not data["active"]:
            env.echo(
                f"  Another session is active, and stays so: `wfs switch {data['session']}` "
                f"makes this one active, or run it with `wfs --session {data['session']} "
                "execute --all`"
            )

    env.emit(data, human)


@click.command()
@click.argument("session_id", metavar="ID", shell_complete=complete_session_id)
@pass_env
def switch(env: Env, session_id: str) -> None:
    """Make session ID (WFS-x or x) the single active session.

    Previously active sessions become paused.

    \b
    Example:
      wfs switch user-auth-system
    """
    data = actions.switch(env.layout, session_id)
    paused = data["paused"]
    env.emit(
        data,
        lambda: env.echo(
            f"Active session: {data['session']}"
            + (f" (paused {', '.join(paused)})" if paused else "")
        ),
    )
