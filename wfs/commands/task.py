"""`wfs task list|show|add|update|status|split|expand`: read and change the tasks of a session."""

from __future__ import annotations

from typing import Any

import click

from wfs import actions
from wfs.cli import (
    Env,
    F,
    pass_env,
    planning_agent_options,
    progress_lines,
    refuse_unreadable,
    refused_answer,
    root_option,
    typed_task_ids,
)
from wfs.completion import complete_task_id
from wfs.errors import WfsError
from wfs.layout import check_task_id
from wfs.platform import shell_join
from wfs.query import list_lines, show_lines
from wfs.schemas import LEAF_STATUSES, TASK_STATUSES, TASK_TYPES
from wfs.store import read_input


@click.group()
def task() -> None:
    """Read and change the tasks of the active session.

    \b
    Example:
      wfs task list --ready
    """


@task.command("list")
@click.option(
    "--status",
    "status_filter",
    type=click.Choice(TASK_STATUSES),
    help="Only tasks with this (derived) status.",
)
@click.option("--ready", is_flag=True, help="Only tasks ready to run.")
@pass_env
def task_list(env: Env, status_filter: str | None, ready: bool) -> None:
    """List tasks in id order, subtasks under their container.

    \b
    Example:
      wfs task list --status pending --json
    """
    data, unreadable = actions.task_list(env.layout, env.session, status_filter, ready)
    env.emit(data, lambda: env.lines(list_lines(data)))
    refuse_unreadable(env, unreadable)


@task.command("show")
@click.argument("task_id", metavar="ID", callback=typed_task_ids, shell_complete=complete_task_id)
@pass_env
def task_show(env: Env, task_id: str) -> None:
    """Show one task: status and why it is not ready, steps, checks and acceptance.

    Its dependencies and subtasks with their statuses, each step with its kind and
    command, the checks that run after it. With --json: the task JSON as written, its
    derived status, readiness and what it waits on.

    \b
    Example:
      wfs task show IMPL-1.2 --json
    """
    if env.json:
        data, unreadable = actions.show_task(env.layout, env.session, task_id)
        env.emit(data, lambda: None)
    else:
        card, unreadable = actions.task_card(env.layout, env.session, task_id)
        env.lines(show_lines(card))
    refuse_unreadable(env, unreadable)


def _object_from(source: str | None) -> dict[str, Any] | None:
    """The JSON object of task fields given with `--from`, if any."""
    if not source:
        return None
    from wfs.edit import fields_from  # deferred: only a write loads the writers

    return fields_from(source)


def _fields(source: str | None, **options: Any) -> dict[str, Any]:
    """Task fields from command-line options, merged over an optional JSON object."""
    from wfs.edit import task_fields  # deferred: only a write loads the writers

    return task_fields(_object_from(source), **options)


def task_field_options(func: F) -> F:
    for option in reversed(
        [
            click.option("--title", help="Task title."),
            click.option(
                "--type",
                "task_type",
                type=click.Choice(TASK_TYPES),
                help="Kind of work (meta.type).",
            ),
            click.option("--agent", help="meta.agent, e.g. @code-developer."),
            click.option(
                "--depends-on",
                "depends",
                multiple=True,
                metavar="ID",
                callback=typed_task_ids,
                shell_complete=complete_task_id,
                help="Task this one waits for (repeatable).",
            ),
            click.option(
                "--requirement", "requirements", multiple=True, help="Requirement (repeatable)."
            ),
            click.option("--acceptance", multiple=True, help="Acceptance criterion (repeatable)."),
            click.option(
                "--focus-path", "focus", multiple=True, help="Concrete path (repeatable)."
            ),
            click.option("--from", "source", metavar="FILE|-", help="JSON object of task fields."),
        ]
    ):
        func = option(func)
    return func


@task.command("add")
@click.option("--id", "task_id", help="Task id (default: the next free one).")
@click.option(
    "--parent",
    metavar="ID",
    callback=typed_task_ids,
    shell_complete=complete_task_id,
    help="Add as the next subtask of this main task.",
)
@task_field_options
@pass_env
def task_add(env: Env, /, task_id: str | None, parent: str | None, **options: Any) -> None:
    """Add a task (default id: the next IMPL-N, or IMPL-N.M with --parent).

    \b
    Example:
      wfs task add --title "Write login tests" --type test-gen --depends-on IMPL-1
    """
    data = _object_from(options.pop("source"))
    if task_id is not None:
        check_task_id(task_id)
    title = options["title"] if options["title"] is not None else (data or {}).get("title")
    if not title:
        raise click.UsageError("a task needs --title (or a title in --from)")
    found, text = actions.task_add(
        env.layout, env.session, task_id=task_id, parent=parent, data=data, **options
    )
    env.emit(found, lambda: env.echo(text))


@task.command("update")
@click.argument("task_id", metavar="ID", callback=typed_task_ids, shell_complete=complete_task_id)
@task_field_options
@pass_env
def task_update(env: Env, /, task_id: str, **options: Any) -> None:
    """Change a task's fields; list options replace the whole list.

    \b
    Example:
      wfs task update IMPL-2 --title "Add refresh tokens" --depends-on IMPL-1
    """
    from wfs.edit import update_task  # deferred: only a write loads the writers

    changes = _fields(**options)
    if not changes:
        raise click.UsageError("nothing to change; give at least one option")
    updated = update_task(env.layout, env.current_session(), check_task_id(task_id), changes)
    env.emit({"task": updated}, lambda: env.echo(f"{task_id}: updated"))


@task.command("status")
@click.argument("task_id", metavar="ID", callback=typed_task_ids, shell_complete=complete_task_id)
@click.argument("new_status", metavar="STATUS", type=click.Choice(LEAF_STATUSES))
@pass_env
def task_status(env: Env, task_id: str, new_status: str) -> None:
    """Set a leaf task's status (containers derive theirs from their subtasks).

    \b
    Example:
      wfs task status IMPL-1.1 completed
    """
    data, text = actions.task_status(env.layout, env.session, task_id, new_status)
    env.emit(data, lambda: env.echo(text))


@task.command("split")
@click.argument("task_id", metavar="ID", callback=typed_task_ids, shell_complete=complete_task_id)
@click.option(
    "--from",
    "source",
    required=True,
    metavar="FILE|-",
    help='Subtasks: a JSON array (or {"tasks": [...]}) of task objects.',
)
@pass_env
def task_split(env: Env, task_id: str, source: str) -> None:
    """Split a main task into subtasks IMPL-N.1, IMPL-N.2, …; it becomes their container.

    Subtasks get context.parent and context.inherited from it. At most 2 levels.

    \b
    Example:
      wfs task split IMPL-2 --from subtasks.json
    """
    from wfs.edit import split_task  # deferred: only a write loads the writers

    created = split_task(
        env.layout, env.current_session(), check_task_id(task_id), *read_input(source)
    )
    ids = [t["id"] for t in created]
    env.emit({"task": task_id, "subtasks": ids}, lambda: env.echo("\n".join(ids)))


@task.command("expand")
@click.argument("task_id", metavar="ID", callback=typed_task_ids, shell_complete=complete_task_id)
@planning_agent_options
@click.option("--dry-run", is_flag=True, help="Print the brief; ask no agent, write nothing.")
@pass_env
def task_expand(env: Env, task_id: str, agent: str | None, max_rounds: int, dry_run: bool) -> None:
    """Split a task into subtasks with the planning agent, as `task split` would.

    The agent gets a brief naming the task (its JSON, the session's tasks, the
    repository, the task format) and answers with a JSON array of subtasks. wfs
    validates them and sends the problems back, up to --max-rounds answers; they are
    written all together or not at all.

    \b
    Example:
      wfs task expand IMPL-2
      wfs task expand IMPL-2 --agent "claude -p"
    """
    from wfs.planning import (  # deferred: only planning with an agent loads the runner
        PlanningFailed,
        no_agent_message,
        planner_command,
    )

    layout = env.layout
    check_task_id(task_id)  # before the agent is looked for: a bad id is named first
    if dry_run:
        _, _, brief = actions.expand_brief(layout, env.session, task_id)
        env.emit({"brief": brief}, lambda: click.echo(brief, nl=False))
        return
    # The commands printed below go on as this run would have: the same root, session
    # and agent.
    wfs_task = ["wfs", *(["--root", r] if (r := root_option(env)) else [])]
    wfs_task += [*(["--session", env.session] if env.session else []), "task"]
    command = planner_command(layout, agent)
    if command is None:
        raise WfsError(
            no_agent_message(
                layout,
                shell_join([*wfs_task, "expand", task_id, "--agent", "CMD"]),
                "or write the subtasks yourself and run "
                f"`{shell_join([*wfs_task, 'split', task_id, '--from', 'FILE'])}`",
            )
        )
    try:
        data = actions.expand_task(
            layout, env.session, task_id, command, max_rounds, progress_lines(env)
        )
    except PlanningFailed as failed:
        again = [*wfs_task, "expand", task_id, *(["--agent", agent] if agent else [])]
        again += ["--max-rounds", str(max_rounds * 2)]
        refused_answer(env, failed, [*wfs_task, "split", task_id, "--from"], again)
        return
    if not env.json:
        env.echo(f"wfs: subtasks accepted in round {data['rounds']} of {max_rounds}", err=True)
    env.emit(data, lambda: env.echo("\n".join(data["subtasks"])))
