"""`wfs diff`, the merge drivers and the git hooks: review and merge plans in git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wfs import jsonio, store
from wfs.cli import Env, pass_env, refuse_unreadable
from wfs.index import UNREADABLE_TITLE


@click.command("diff")
@click.argument("revision", metavar="[REV|A..B|A...B]", required=False)
@click.option("--exit-code", is_flag=True, help="Exit 1 when the plans differ.")
@click.option(
    "--html",
    "html_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also write FILE.html: each changed session's board before and after, side by "
    "side, in one file that needs no network (a pull request's attachment).",
)
@pass_env
def diff(env: Env, revision: str | None, exit_code: bool, html_file: str | None) -> None:
    """Show plan changes task by task: git revision REV (default HEAD) vs the working tree.

    Per session: tasks added, removed and changed (status, title, dependencies,
    pre_analysis and implementation_approach steps, other fields by JSON path).
    A..B compares two revisions; A...B shows what branch B changed since it left A.
    Exits 0 whether or not the plans differ, unless --exit-code is given.

    \b
    Example:
      wfs diff
      wfs diff main...my-branch --json
      wfs diff main...my-branch --html plan-change.html
    """
    from wfs.review import diff_plans, sides  # deferred: only `wfs diff` loads it

    old, new = sides(env.layout, revision)
    report = diff_plans(old, new)
    if html_file is not None:
        _write_html(env, report, old, new, Path(html_file))
    env.emit(report, lambda: _print_diff(env, report))
    refuse_unreadable(env, report.get("unreadable"))
    if exit_code and report["changed"]:
        click.get_current_context().exit(1)


def _write_html(env: Env, report: dict[str, Any], old: Any, new: Any, target: Path) -> None:
    """The boards of each changed session, before and after (wfs.board)."""
    from wfs.board import data, server  # deferred: only `--html` draws boards

    def board(side: Any, sid: str) -> dict[str, Any] | None:
        files = side.sessions.get(sid)
        return data.revision_board(sid, files.session, files.tasks) if files else None

    changed = [entry["session"] for entry in report["sessions"]]
    pairs = [(sid, board(old, sid), board(new, sid)) for sid in changed]
    page = server.diff_page(_side_name(report["from"]), _side_name(report["to"]), pairs)
    store.confine(target.resolve().parent)  # the file the user names, wherever it is
    store.write_bytes(target.resolve(), page.encode("utf-8"), durable=False)
    env.echo(f"Wrote {target}", err=True)


def _side_name(side: dict[str, Any]) -> str:
    return str(side["rev"]) if side["rev"] is not None else "the working tree"


def _short(value: Any) -> str | None:
    """A scalar as JSON when it fits on a line; None for lists, objects, long text."""
    if isinstance(value, dict | list):
        return None
    text = jsonio.compact(value).decode()
    return text if len(text) <= 60 else None


def _print_diff(env: Env, report: dict[str, Any]) -> None:
    old, new = _side_name(report["from"]), _side_name(report["to"])
    if not report["changed"]:
        env.echo(f"No plan changes between {old} and {new}.")
        return
    marks = {
        "added": env.style("+", fg="green"),
        "removed": env.style("-", fg="red"),
        "changed": env.style("~", fg="yellow"),
    }
    env.echo(f"Plan changes from {old} to {new}:")
    for session in report["sessions"]:
        note = {"added": " (new session)", "removed": " (session removed)"}.get(
            session["status"], ""
        )
        env.echo("")
        env.echo(env.style(session["session"], bold=True) + note)
        fields = [_field_text(f) for f in session["fields"]]
        if fields:
            env.echo(f"  session: {'; '.join(fields)}")
        tasks = session["tasks"]
        for kind in ("added", "removed"):
            for task in tasks[kind]:
                if "unreadable" in task:
                    env.echo(f"  {marks[kind]} {task['id']}  {UNREADABLE_TITLE}")
                else:
                    env.echo(f"  {marks[kind]} {task['id']}  {task['title']}  [{task['status']}]")
        for task in tasks["changed"]:
            title = (
                UNREADABLE_TITLE
                if task["title"] is None and "unreadable" in task
                else task["title"]
            )
            env.echo(f"  {marks['changed']} {task['id']}  {title}")
            if "unreadable" in task:
                env.echo("      its file cannot be read on one side: what changed is not shown")
            for line in _task_change_lines(task["changes"], marks):
                env.echo(f"      {line}")
    env.echo("")
    env.echo(_diff_totals(report["summary"]))


def _field_text(field: dict[str, Any]) -> str:
    if field["change"] == "changed":
        old, new = _short(field["old"]), _short(field["new"])
        if old is not None and new is not None:
            return f"{field['path']} {old} → {new}"
    return f"{field['path']} {field['change']}"


def _task_change_lines(changes: dict[str, Any], marks: dict[str, str]) -> list[str]:
    lines = []
    if "status" in changes:
        lines.append(f"status: {changes['status']['old']} → {changes['status']['new']}")
    if "title" in changes:
        title = changes["title"]
        lines.append(f"title: {_short(title['old'])} → {_short(title['new'])}")
    if "depends_on" in changes:
        deps = changes["depends_on"]
        moved = [f"+{d}" for d in deps["added"]] + [f"-{d}" for d in deps["removed"]]
        lines.append(f"depends_on: {' '.join(moved) or 'reordered'}")
    for step in changes.get("steps", []):
        where = step["list"]
        if step["change"] == "reordered":
            lines.append(f"{marks['changed']} {where} reordered: {', '.join(step['order'])}")
            continue
        text = f"{marks[step['change']]} {where}[{step['index']}] {step['name']}"
        if step["change"] == "changed":
            text += f": {', '.join(step['fields'])}"
        lines.append(text)
    for field in changes.get("fields", []):
        lines.append(f"{marks[field['change']]} {_field_text(field)}")
    return lines


def _diff_totals(summary: dict[str, Any]) -> str:
    def count(number: int, noun: str) -> str:
        return f"{number} {noun}{'' if number == 1 else 's'}"

    sessions = [f"{count(n, 'session')} {kind}" for kind, n in summary["sessions"].items() if n]
    tasks = summary["tasks"]
    return (
        f"{', '.join(sessions)}; tasks: {tasks['added']} added, {tasks['removed']} removed, "
        f"{tasks['changed']} changed"
    )


_DRIVER_FILE = click.Path(exists=True, dir_okay=False)


@click.command("merge-views", hidden=True)
@click.argument("base", type=_DRIVER_FILE)
@click.argument("ours", type=_DRIVER_FILE)
@click.argument("theirs", type=_DRIVER_FILE)
@click.argument("path", required=False, default="")
def merge_views(base: str, ours: str, theirs: str, path: str) -> None:
    """Git merge driver for the generated views: leave a conflict-free file in OURS.

    The views are re-rendered from the merged JSON by the post-merge hook (or by
    `wfs render`); `wfs init` sets up both.

    \b
    Example:
      git config merge.wfs-views.driver "wfs merge-views %O %A %B %P"
    """
    from wfs.merge import merge_views as run_driver  # deferred: only git integration loads it

    run_driver(Path(base), Path(ours), Path(theirs), path)


@click.command("merge-json", hidden=True)
@click.argument("base", type=_DRIVER_FILE)
@click.argument("ours", type=_DRIVER_FILE)
@click.argument("theirs", type=_DRIVER_FILE)
@click.argument("path", required=False, default="")
def merge_json(base: str, ours: str, theirs: str, path: str) -> None:
    """Git merge driver for task and session JSON: merge field by field into OURS.

    Exits 1, leaving git's usual conflict markers, when both sides changed one value.

    \b
    Example:
      git config merge.wfs-json.driver "wfs merge-json %O %A %B %P"
    """
    from wfs.merge import merge_json as run_driver  # deferred: only git integration loads it

    if run_driver(Path(base), Path(ours), Path(theirs), path or Path(ours).name):
        click.get_current_context().exit(1)


@click.group(hidden=True)
def hook() -> None:
    """Git hooks installed by `wfs init`.

    \b
    Example:
      wfs hook pre-merge-commit
    """


@hook.command("pre-merge-commit")
@pass_env
def hook_pre_merge_commit(env: Env) -> None:
    """Note that git is about to make a merge commit (post-merge then finishes it).

    \b
    Example:
      wfs hook pre-merge-commit
    """
    from wfs.merge import note_merge_commit  # deferred: only git integration loads it

    note_merge_commit(env.layout)


@hook.command("post-merge")
@click.argument("squash", required=False, default="0")
@pass_env
def hook_post_merge(env: Env, squash: str) -> None:
    """Put fresh views of every session a merge touched into the merge commit.

    After `git merge --squash` (SQUASH is 1), re-render and stage them instead.

    \b
    Example:
      wfs hook post-merge 0
    """
    from wfs.merge import after_merge  # deferred: only git integration loads it

    result = after_merge(env.layout, squash == "1")
    data = {
        "sessions": [r._asdict() for r in result.sessions],
        "commit": result.commit,
        "staged": result.staged,
        "note": result.note,
    }

    def human() -> None:
        written = [p for r in result.sessions for p in r.written]
        if result.commit:
            env.echo(f"wfs: merge commit {result.commit[:12]} now holds fresh plan views")
        elif result.staged:
            env.echo(f"wfs: re-rendered and staged {', '.join(result.staged)}")
        elif written:
            env.echo(f"wfs: re-rendered {', '.join(written)}")

    env.emit(data, human)
    for row in result.sessions:
        if row.error:
            env.echo(f"wfs: warning: {row.session}: views not re-rendered: {row.error}", err=True)
    if result.note:
        env.echo(f"wfs: {result.note}", err=True)
