"""The generated views, TODO_LIST.md and IMPL_PLAN.md.

Rendering is a pure function of the session and task JSON (no clock, no environment),
so identical JSON always gives byte-identical views.

A view that wfs did not generate (an IMPL_PLAN.md written by a planning agent, a
TODO_LIST.md kept by hand) is never destroyed: before the first render it is renamed,
byte for byte, to `IMPL_PLAN.authored.md` (or `TODO_LIST.authored.md`), and the
generated view links to it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from wfs import store
from wfs.layout import task_sort_key
from wfs.tasks import Task, TaskIndex, depends_on, obj, parent_id, session_facts
from wfs.text import printable

VIEWS = ("TODO_LIST.md", "IMPL_PLAN.md")


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return printable(" ".join(text.split()))


def _strings(value: Any) -> list[str]:
    return [_one_line(v) for v in value if v is not None] if isinstance(value, list) else []


def _node(tid: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", tid)


def _label(tid: str, title: str) -> str:
    return f"{tid}: {title}".replace('"', "#quot;")


class Entry(SimpleNamespace):
    """One task as the views show it."""


def entry(
    tid: str, task: Task, status: str, container: bool, parent: str | None, gap: bool
) -> Entry:
    """One task as the views show it (`parent`: set when it is shown under it)."""
    title = _one_line(task.get("title"))
    return Entry(
        id=tid,
        title=title,
        status=status,
        container=container,
        nested=parent is not None,
        parent=parent,
        depends_on=depends_on(task),
        agent=_one_line(obj(task, "meta").get("agent")),
        acceptance=_strings(obj(task, "context").get("acceptance")),
        node=_node(tid),
        label=_label(tid, title),
        children=[],
        gap=gap,
    )


def _entries(index: TaskIndex) -> list[Entry]:
    """Tasks in display order: each main task followed by its subtasks."""
    by_id: dict[str, Entry] = {}
    for tid in sorted(index.by_id, key=task_sort_key):
        task = index.by_id[tid]
        parent = parent_id(task)
        nested = parent is not None and parent in index.by_id and parent != tid
        by_id[tid] = entry(
            tid,
            task,
            index.effective_status(tid),
            index.is_container(tid),
            parent if nested else None,
            False,
        )
    for shown in by_id.values():
        if shown.nested:
            by_id[shown.parent].children.append(shown)
    # Main tasks in id order, each immediately followed by its subtasks.
    entries: list[Entry] = []
    for shown in by_id.values():
        if shown.nested:
            continue
        shown.gap = bool(entries)
        entries.append(shown)
        entries.extend(shown.children)
    return entries


# ------------------------------------------------------------------ the views, by part
# Each view is a sequence of parts: a head, one piece per task in display order, and a
# tail that depends only on counts. A change to a few tasks rewrites only their pieces
# (wfs/delta.py); a full render joins every piece. Both use the functions below, so the
# two are the same bytes by construction (and tests compare them after random edits).

TODO_PROGRESS = "## Task Progress\n"
TODO_LEGEND = "\n## Status Legend\n"
PLAN_OVERVIEW = "\n## Overview\n"
PLAN_TABLE = "| ID | Title | Status | Depends on | Agent |\n|---|---|---|---|---|\n"
PLAN_GRAPH = "\n## Dependency Graph\n```mermaid\ngraph TD\n"
PLAN_CRITERIA = "```\n\n## Acceptance Criteria\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def todo_head(topic: str, kept: list[str]) -> str:
    notes = "".join(
        f"> Kept as written before wfs generated this view: [{name}](./{name})\n\n" for name in kept
    )
    return f"# Tasks: {topic}\n\n{notes}{TODO_PROGRESS}"


def todo_piece(entry: Entry) -> str:
    """The line of one task in TODO_LIST.md (with the blank line before a main task)."""
    gap = "\n" if entry.gap else ""
    link = f"[📋](./.task/{entry.id}.json)"
    if entry.container:
        return f"{gap}▸ **{entry.id}**: {entry.title} → {link}\n"
    box = "x" if entry.status == "completed" else " "
    line = f"{'  ' if entry.nested else ''}- [{box}] **{entry.id}**: {entry.title} → {link}"
    if entry.status == "completed":
        line += f" | [✅](./.summaries/{entry.id}-summary.md)"
    elif entry.status == "active":
        line += " ⏳ active"
    elif entry.status == "blocked":
        line += " 🚫 blocked"
    return f"{gap}{line}\n"


def todo_tail(session_id: str, empty: bool, has_active: bool, has_blocked: bool) -> str:
    none = (
        f"_No tasks yet: add them with `wfs plan --session {session_id} --from PLAN.json` "
        "or `wfs task add`._\n"
        if empty
        else ""
    )
    return (
        f"{none}{TODO_LEGEND}"
        "- `▸` = Container task (has subtasks)\n"
        "- `- [ ]` = Pending leaf task\n"
        "- `- [x]` = Completed leaf task\n"
        + ("- `⏳ active` = Leaf task in progress\n" * has_active)
        + (
            "- `🚫 blocked` = Leaf task blocked (see its JSON for the reason)\n"
            if has_blocked
            else ""
        )
        + "- Maximum 2 levels: Main tasks and subtasks only\n"
    )


def plan_head(facts: dict[str, Any], done: int, leaves: int, kept: list[str]) -> str:
    """IMPL_PLAN.md up to its overview: everything a task's status can change there."""
    notes = "".join(
        f"- **Authored plan**: [{name}](./{name}) (written before wfs generated this view, "
        "kept as it was)\n"
        for name in kept
    )
    return (
        f"# Implementation Plan: {facts['topic']}\n\n"
        f"- **Session**: `{facts['session_id']}`\n"
        f"- **Type**: {facts['type']} · **Phase**: {facts['phase']} · "
        f"**Status**: {facts['status']}\n"
        f"- **Progress**: {done}/{leaves} tasks completed\n{notes}"
    )


def plan_body(overview: str, requirements: list[str], empty: bool) -> str:
    """IMPL_PLAN.md from its overview to its task table (the session's plan only)."""
    text = PLAN_OVERVIEW + (f"{overview}\n" if overview else "_No overview yet._\n")
    text += "\n## Requirements\n"
    text += "".join(f"- {req}\n" for req in requirements) or "_No requirements recorded._\n"
    text += "\n## Task Structure\n"
    return text + ("_No tasks yet._\n" if empty else PLAN_TABLE)


def plan_row(entry: Entry) -> str:
    deps = ", ".join(entry.depends_on) or "—"
    return (
        f"| {'↳ ' if entry.nested else ''}{entry.id} | {_cell(entry.title)} | {entry.status} "
        f"| {deps} | {_cell(entry.agent) or '—'} |\n"
    )


def plan_node_line(entry: Entry) -> str:
    """A task's own line in the dependency graph."""
    if entry.container:
        return f'  subgraph {entry.node} ["{entry.label}"]\n'
    return f'{"    " if entry.nested else "  "}{entry.node}["{entry.label}"]\n'


def plan_node(entry: Entry) -> str:
    """A main task in the dependency graph: a node, or a subgraph of its subtasks."""
    if not entry.container:
        return plan_node_line(entry)
    inner = "".join(plan_node_line(child) for child in entry.children)
    return f"{plan_node_line(entry)}{inner}  end\n"


def plan_edges(entry: Entry, known: Any) -> str:
    return "".join(f"  {_node(dep)} --> {entry.node}\n" for dep in entry.depends_on if dep in known)


def plan_criteria(entry: Entry) -> str:
    items = "".join(f"- {item}\n" for item in entry.acceptance) or "_None recorded._\n"
    return f"\n### {entry.id}: {entry.title}\n{items}"


def view_facts(session: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """The session's part of the views, each value on one printable line."""
    return {
        "session_id": _one_line(session.get("session_id")),
        "topic": _one_line(session.get("project"))
        or _one_line(session.get("topic"))
        or _one_line(session.get("session_id")),
        "type": _one_line(facts["type"]),
        "phase": _one_line(facts["phase"]),
        "status": _one_line(session.get("status")),
    }


def render_views(
    session: dict[str, Any],
    tasks: list[Task],
    index: TaskIndex | None = None,
    kept: dict[str, list[str]] | None = None,
) -> dict[str, str]:
    """View file name -> text (`index`: the TaskIndex of `tasks`, when already built;
    `kept`: view name -> the authored copies kept beside it, which it links to)."""
    index = index or TaskIndex(tasks)
    facts = view_facts(session, session_facts(session, index.tally()))
    entries = _entries(index)
    leaves = [e for e in entries if not e.container]
    done = sum(1 for e in leaves if e.status == "completed")
    plan = obj(session, "plan")
    kept = kept or {}
    todo = [todo_head(facts["topic"], kept.get("TODO_LIST.md", []))]
    todo += [todo_piece(e) for e in entries]
    todo.append(
        todo_tail(
            facts["session_id"],
            not entries,
            any(e.status == "active" for e in leaves),
            any(e.status == "blocked" for e in leaves),
        )
    )
    body = plan_body(
        printable(str(plan.get("overview") or "").strip()),
        _strings(plan.get("requirements")),
        not entries,
    )
    impl = [plan_head(facts, done, len(leaves), kept.get("IMPL_PLAN.md", [])), body]
    if entries:
        impl += [plan_row(e) for e in entries]
        impl.append(PLAN_GRAPH)
        impl += [plan_node(e) for e in entries if not e.nested]
        impl += [plan_edges(e, index.by_id) for e in entries]
        impl.append(PLAN_CRITERIA)
        impl += [plan_criteria(e) for e in entries]
    return {"TODO_LIST.md": "".join(todo), "IMPL_PLAN.md": "".join(impl)}


AUTHORED = ".authored"
# What wfs writes: IMPL_PLAN.md opens with its header; every line of TODO_LIST.md is one
# of the template's (headings, task lines, legend). Anything else was written by someone.
_GENERATED_PLAN = (
    r"\A# Implementation Plan: [^\n]*\n\n- \*\*Session\*\*: `[^`\n]*`\n- \*\*Type\*\*: "
)
_TODO_LINE = (
    r"# Tasks: .*|## Task Progress|## Status Legend|"
    r"▸ \*\*[^*]+\*\*: .* → \[📋\]\(\./\.task/[^)]+\.json\)|"
    r"(  )?- \[[ x]\] \*\*[^*]+\*\*: .* → \[📋\]\(\./\.task/[^)]+\.json\)"
    r"( \| \[✅\]\(\./\.summaries/[^)]+\))?( ⏳ active| 🚫 blocked)?|"
    r"- `[^`]+` = .*|- Maximum 2 levels: Main tasks and subtasks only|"
    r"_No tasks yet: .*_|> Kept as written before wfs generated this view: .*"
)


def is_generated(name: str, text: str | None) -> bool:
    """Whether a view's text is one wfs generated (up to date or not)."""
    if text is None:
        return False
    if name == "IMPL_PLAN.md":
        return bool(re.match(_GENERATED_PLAN, text))  # compiled on first use, then cached
    lines = text.splitlines()
    return (
        bool(lines)
        and lines[0].startswith("# Tasks: ")
        and all(not line or re.fullmatch(_TODO_LINE, line) for line in lines)
    )


def authored_name(name: str, n: int = 1) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}{AUTHORED}{'' if n == 1 else f'-{n}'}{dot}{ext}"


def kept_views(session_dir: Path) -> dict[str, list[str]]:
    """View name -> the authored copies kept beside it, in the order they were kept."""
    kept: dict[str, list[str]] = {}
    for name in VIEWS:
        n = 1
        while (session_dir / authored_name(name, n)).exists():
            kept.setdefault(name, []).append(authored_name(name, n))
            n += 1
    return kept


def keep_authored(session_dir: Path) -> list[str]:
    """Rename every view wfs did not generate to its next free `.authored` name, byte
    for byte; return the new names."""
    moved = []
    for name in VIEWS:
        path = session_dir / name
        if not path.is_file() or is_generated(name, read_view(path)):
            continue
        n = 1
        while os.path.lexists(session_dir / authored_name(name, n)):
            n += 1
        store.move(path, session_dir / authored_name(name, n))
        moved.append(authored_name(name, n))
    return moved


def expected_views(
    session_dir: Path, session: dict[str, Any], tasks: list[Task], index: TaskIndex | None = None
) -> dict[str, str]:
    """What the views of a session folder should read (linking to its authored copies,
    including those `write_views` is about to keep)."""
    kept = kept_views(session_dir)
    for name in VIEWS:
        path = session_dir / name
        if path.is_file() and not is_generated(name, read_view(path)):
            n = len(kept.get(name, [])) + 1
            while (session_dir / authored_name(name, n)).exists():
                n += 1
            kept.setdefault(name, []).append(authored_name(name, n))
    return render_views(session, tasks, index, kept)


def write_views(
    session_dir: Path,
    session: dict[str, Any],
    tasks: list[Task],
    index: TaskIndex | None = None,
    rendered: dict[str, Any] | None = None,
) -> list[str]:
    """Write the views that changed (authored ones kept aside first); return their names.

    `rendered`, when given, receives the bytes of both views and the authored copies
    they link to (what wfs/delta.py checks the views by)."""
    keep_authored(session_dir)
    kept = kept_views(session_dir)
    written = []
    views = {
        name: text.encode("utf-8")
        for name, text in render_views(session, tasks, index, kept).items()
    }
    for name, data in views.items():
        if store.write_if_changed(session_dir / name, data):
            written.append(name)
    if rendered is not None:
        rendered.update(views=views, kept=kept)
    return written


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in `text`, so the text stays whole."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def read_view(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def render_summary(
    task: Task,
    steps: list[dict[str, Any]],
    changed: list[str],
    links: dict[str, str] | None = None,
) -> str:
    """`.summaries/<ID>-summary.md` for a completed task.

    `links`: output name -> where its whole text is, for the outputs too long to show
    whole (see engine.needs_link): those show their start and link the rest.
    """
    from wfs.flow.engine import SUMMARY_OUTPUT_CHARS, SUMMARY_OUTPUT_LINES

    links = links or {}
    rows = "".join(
        f"| {step['key']} | {_cell(step['name'])} | {step['status']}"
        + (f" ({step['how']})" if step.get("how") else "")
        + f" | {step.get('elapsed') or 0:.2f}s |\n"
        for step in steps
    )
    outputs = []
    for step in steps:
        name = step.get("bind")
        if name and step.get("status") == "done":
            value = str(step.get("output", "")).rstrip("\n")
            if name in links:
                value = "\n".join(value.splitlines()[:SUMMARY_OUTPUT_LINES])[:SUMMARY_OUTPUT_CHARS]
            value = printable(value)
            fence = _fence(value)
            link = links.get(name)
            outputs.append(
                f"\n### `{name}`\n{fence}text\n{value}\n{fence}\n"
                + (
                    f"… cut here; the whole output is in [{link}]({link}) "
                    "(kept with the run record, not committed).\n"
                    if link
                    else ""
                )
            )
    files = "".join(f"- `{path}`\n" for path in changed)
    return (
        f"# {task.get('id')}: {_one_line(task.get('title'))}\n\n"
        "- **Status**: completed\n"
        f"- **Agent**: {_one_line(obj(task, 'meta').get('agent')) or '—'}\n\n"
        "## Steps\n| Step | Name | Outcome | Time |\n|---|---|---|---|\n"
        f"{rows}\n## Outputs for Dependent Tasks\n"
        + ("".join(outputs) or "_This task bound no outputs._\n")
        + "\n## Files Changed\n"
        + (files or "_None detected (or not a git repository)._\n")
    )
