"""`wfs validate`, `render`, `doctor`, `migrate` and `schema`: check the plan, regenerate
its views, repair and convert it."""

from __future__ import annotations

import click

from wfs import actions
from wfs.cli import Env, pass_env, refuse_unreadable
from wfs.plans import plan_lines, plan_rows
from wfs.resources import read_text
from wfs.schemas import SCHEMA_NAMES
from wfs.sessions import active_ids


@click.command()
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@pass_env
def validate(env: Env, all_sessions: bool) -> None:
    """Check task and session files against every rule; one `path: rule: message` per problem.

    Exits 1 when any error is found (warnings alone exit 0). The project's Maestro-Flow
    plans are listed after; with --all, or when they are the project's only plans, those
    not yet imported are checked as the import would read them.

    \b
    Example:
      wfs validate --all
    """
    layout = env.layout
    sids = actions.validated_sessions(layout, env.session, all_sessions)
    result = actions.validate(layout, sids, every=all_sessions)
    maestro = result.data.get("maestro", [])

    def human() -> None:
        for problem in result.problems:
            env.echo(str(problem))
        if not result.problems:
            checked = [row["name"] for row in maestro if not row["imported_as"]]
            if all_sessions or not sids:
                sids_and_maestro = sids + checked
            else:
                sids_and_maestro = sids
            env.echo(f"OK: {', '.join(sids_and_maestro) or 'no sessions'}")
        env.lines(plan_lines(maestro, bool(sids)))

    env.emit(result.data, human)
    if result.exit_code:
        click.get_current_context().exit(result.exit_code)


INTERRUPTED_CHANGE = (
    "a change to several files was interrupted, so they are half written; "
    "`wfs doctor --fix` finishes it"
)


@click.command()
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a view is stale.")
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@pass_env
def render(env: Env, check: bool, all_sessions: bool) -> None:
    """Regenerate TODO_LIST.md and IMPL_PLAN.md from the JSON.

    With --check, name every view that is stale or hand-edited and exit 1.

    \b
    Example:
      wfs render --check --all
    """
    layout = env.layout
    sids = actions.chosen_sessions(layout, env.session, all_sessions)
    result = actions.render(layout, sids, all_sessions, check)
    data = result.data
    if check:
        fix = "wfs render --all" if all_sessions else "wfs render"

        def human() -> None:
            for journal in data["interrupted"]:
                env.echo(f"{journal}: {INTERRUPTED_CHANGE}")
            for path in data["stale"]:
                env.echo(f"{path}: stale or hand-edited; run `{fix}`")
            if not data["stale"] and not data["interrupted"] and not data.get("unreadable"):
                env.echo(
                    f"OK: views of {', '.join(sids)} are up to date" if sids else "OK: no sessions"
                )

        env.emit(data, human)
        refuse_unreadable(env, data.get("unreadable"))
    elif data.get("unreadable"):
        refuse_unreadable(env, data["unreadable"])
    else:
        written = data["written"]
        env.emit(
            data,
            lambda: env.echo(
                "\n".join(f"wrote {p}" for p in written) or "Views already up to date."
            ),
        )
    if result.exit_code:
        click.get_current_context().exit(result.exit_code)


@click.command()
@click.option("--fix", is_flag=True, help="Repair what can be repaired safely.")
@pass_env
def doctor(env: Env, fix: bool) -> None:
    """Find (and with --fix repair) inconsistent state.

    Orphaned or extra active markers, corrupted session files (kept aside, recreated),
    broken parent/child links, stale views, leftovers of interrupted writes.
    Without --fix, exits 1 when it finds anything.

    \b
    Example:
      wfs doctor --fix
    """
    result = actions.doctor(env.layout, fix)
    rows = result.data["findings"]
    plans = plan_rows(env.layout)
    if plans:  # listed, as every command that looks at the whole project lists them
        result.data["maestro"] = plans

    def human() -> None:
        for row in rows:
            if row["fixed"]:
                env.echo(f"fixed: {row['where']}: {row['problem']} ({row['action']})")
            elif row["fixable"]:
                env.echo(
                    f"found: {row['where']}: {row['problem']} "
                    f"(`wfs doctor --fix` repairs it and reports: {row['action']})"
                )
            else:
                env.echo(f"found: {row['where']}: {row['problem']} ({row['action']})")
        if not rows:
            env.echo("OK: nothing to repair")
        env.lines(plan_lines(plans, bool(active_ids(env.layout))))

    env.emit(result.data, human)
    if result.exit_code:
        click.get_current_context().exit(result.exit_code)


@click.command()
@click.option("--all", "all_sessions", is_flag=True, help="Every session, not just the active one.")
@click.option(
    "--layout",
    "target_layout",
    type=click.Choice(["markers", "active"]),
    help="Move every session into this layout instead: markers (.workflow/WFS-*) or "
    "active (.workflow/active/ and archives/).",
)
@pass_env
def migrate(env: Env, all_sessions: bool, target_layout: str | None) -> None:
    """Convert task and session files to the canonical task format, keeping every field.

    Task files in the v1 form, the flat format, with task_id, dependencies outside
    context.depends_on or statuses of other tools are rewritten in the canonical form
    (docs/formats.md); session files get the fields the format asks of them
    (current_phase, progress, ...).
    With --layout, moves the sessions instead (active ones stay active).

    \b
    Example:
      wfs migrate --all
      wfs migrate --layout active
    """
    if target_layout is not None:
        moved = actions.migrate_layout(env.layout, target_layout)
        env.emit(
            moved,
            lambda: env.echo(
                "\n".join(f"moved {m['from']} to {m['to']}" for m in moved["moved"])
                or f"Already in the {target_layout} layout."
            ),
        )
        return
    changed = actions.migrate(env.layout, env.session, all_sessions)
    env.emit(
        {"migrated": changed},
        lambda: env.echo(
            "\n".join(f"{key}: migrated {name}" for key, names in changed.items() for name in names)
            or "Nothing to migrate."
        ),
    )


@click.command()
@click.argument("name", type=click.Choice(SCHEMA_NAMES))
@pass_env
def schema(env: Env, name: str) -> None:
    """Print the JSON Schema of a task, session or plan document.

    `task` is the canonical task format (the one `wfs migrate` writes); `task-v1` and
    `task-flat` are the other task formats wfs reads (docs/formats.md).

    \b
    Example:
      wfs schema task > task.schema.json
    """
    click.echo(read_text("schemas", f"{name}.schema.json"), nl=False)
